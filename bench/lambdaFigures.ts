import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleLambdas } from '../lib/build/lambdaBundles.ts';
import { lambdaEntries } from '../lib/aws/handlers.ts';
import { percentiles } from './payments.ts';

/**
 * Minified bundle size and cold import time of every Lambda entry point: the bundles the CDK
 * deploys to sandbox and production (no simulator, docs/decisions/121), built into a scratch folder,
 * each imported by a fresh `node` process the way a Lambda cold start loads it, with the environment a
 * Lambda would have (no NODE_OPTIONS: source maps are read at the first trace, docs/decisions/163). Beside them the baseline,
 * a bundle holding only a DynamoDB GetItem (bench/baselines/getItemOnly.ts), built and timed in the
 * same run: the goals are ratios to it.
 * Imports are interleaved (each round imports every bundle once) so that machine noise falls on all
 * of them alike; each figure is the median of its rounds.
 */
// 11, not 7: the goal reads the slowest of some 90 medians, and on a shared machine a median of 7 wanders.
const rounds = 11;
export const getItemOnlyEntry = 'bench/baselines/getItemOnly.ts';

function coldImportMs(file: string): number {
  const script = `const t=performance.now();await import(${JSON.stringify(file)});console.log(performance.now()-t)`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, TABLE_NAME: 'payments', SERVICE_ENVIRONMENT: 'simulated', AWS_REGION: 'us-east-1', LOG_LEVEL: 'SILENT' },
  });
  if (run.status !== 0) throw new Error(`importing ${file} failed: ${run.stderr}`);
  return Number(run.stdout.trim());
}

const median = (values: number[]) => percentiles(values).p50;

export async function lambdaBundleFigures() {
  const outRoot = mkdtempSync(join(tmpdir(), 'bundles-'));
  try {
    const built = bundleLambdas([...lambdaEntries(), getItemOnlyEntry], { outRoot });
    const samples = new Map(built.map((bundle) => [bundle.entry, [] as number[]]));
    for (let i = 0; i < rounds; i += 1) {
      for (const bundle of built) samples.get(bundle.entry)!.push(coldImportMs(join(bundle.outdir, 'index.mjs')));
    }
    const measured = built.map((bundle) => ({ entry: bundle.entry, bytes: bundle.bytes, importBytes: bundle.importBytes, coldImportMsMedian: median(samples.get(bundle.entry)!) }));
    const baseline = measured.find((bundle) => bundle.entry === getItemOnlyEntry)!;
    const bundles = measured.filter((bundle) => bundle !== baseline).sort((a, b) => b.bytes - a.bytes);
    const slowest = bundles.reduce((worst, bundle) => (bundle.coldImportMsMedian > worst.coldImportMsMedian ? bundle : worst));
    return {
      getItemOnly: { bytes: baseline.bytes, importBytes: baseline.importBytes, coldImportMsMedian: baseline.coldImportMsMedian },
      summary: {
        count: bundles.length,
        medianBytes: median(bundles.map((bundle) => bundle.bytes)),
        maxBytes: bundles[0]!.bytes,
        maxBytesEntry: bundles[0]!.entry,
        /** What a cold start loads: index.mjs and its static chunks; the rest loads at first use (docs/decisions/161). */
        medianImportBytes: median(bundles.map((bundle) => bundle.importBytes)),
        maxImportBytes: Math.max(...bundles.map((bundle) => bundle.importBytes)),
        coldImportMsMedian: median(bundles.map((bundle) => bundle.coldImportMsMedian)),
        coldImportMsMax: slowest.coldImportMsMedian,
        coldImportMaxEntry: slowest.entry,
        coldImportMaxOverGetItemOnly: Number((slowest.coldImportMsMedian / baseline.coldImportMsMedian).toFixed(2)),
        coldImportMedianOverGetItemOnly: Number((median(bundles.map((bundle) => bundle.coldImportMsMedian)) / baseline.coldImportMsMedian).toFixed(2)),
        /** Functions whose cold import passes the goal (1.5× the GetItem-only bundle's). */
        coldImportOverGoalCount: bundles.filter((bundle) => bundle.coldImportMsMedian > 1.5 * baseline.coldImportMsMedian).length,
      },
      bundles,
    };
  } finally {
    rmSync(outRoot, { recursive: true, force: true });
  }
}
