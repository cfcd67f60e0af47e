import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const repositoryRoot = path.resolve(import.meta.dirname, '../..');

export interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; severity: string }[];
}

/**
 * `redocly lint` of a document, as its JSON report. It runs from the repository root so that
 * redocly.yaml applies; lint exits non-zero on errors, which is the finding, not a failure to run.
 */
export async function redoclyLint(document: unknown): Promise<LintReport> {
  const directory = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'));
  try {
    const file = path.join(directory, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    const cli = path.join(repositoryRoot, 'node_modules/@redocly/cli/bin/cli.js');
    const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', file, '--format=json'], {
      cwd: repositoryRoot,
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return JSON.parse(stdout) as LintReport;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
