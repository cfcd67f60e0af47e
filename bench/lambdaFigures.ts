import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleLambdas } from '../lib/build/lambdaBundles.ts';

/**
 * Minified bundle size and cold import time of every Lambda entry point: the bundles the CDK
 * deploys to sandbox and production (no simulator, docs/decisions/121), built into a scratch folder, each imported by a fresh `node` process (the median of
 * a few) the way a Lambda cold start loads it, with the environment a Lambda would have.
 */
const imports = 5;

export async function lambdaBundleFigures() {
  const outRoot = mkdtempSync(join(tmpdir(), 'bundles-'));
  try {
    const bundles = bundleLambdas(undefined, { outRoot });
    return bundles
      .map((bundle) => {
        const samples: number[] = [];
        for (let i = 0; i < imports; i += 1) {
          const script = `const t=performance.now();await import(${JSON.stringify(join(bundle.outdir, 'index.mjs'))});console.log(performance.now()-t)`;
          const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
            encoding: 'utf8',
            env: {
              PATH: process.env.PATH,
              TABLE_NAME: 'payments',
              SERVICE_ENVIRONMENT: 'simulated',
              AWS_REGION: 'us-east-1',
              LOG_LEVEL: 'SILENT',
            },
          });
          if (run.status !== 0) throw new Error(`importing ${bundle.name} failed: ${run.stderr}`);
          samples.push(Number(run.stdout.trim()));
        }
        samples.sort((a, b) => a - b);
        return { entry: bundle.entry, bytes: bundle.bytes, coldImportMsMedian: Number(samples[Math.floor(imports / 2)]!.toFixed(1)) };
      })
      .sort((a, b) => b.bytes - a.bytes);
  } finally {
    rmSync(outRoot, { recursive: true, force: true });
  }
}
