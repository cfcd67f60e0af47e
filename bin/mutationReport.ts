import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run mutation`'s verdict (docs/decisions/144-mutation-testing.md): Stryker's own threshold is
 * for the whole run; the goal is per file, so this reads its JSON report (the mutation testing report
 * schema), prints one row per mutated file and exits 1 when any file is below 90 %.
 * `--survivors [file]` also lists what survived, to write the test that kills it.
 */
export const minimumScore = 90;

interface ReportMutant {
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number } };
}

export interface MutationReport {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

export interface FileScore {
  file: string;
  killed: number;
  survived: number;
  noCoverage: number;
  ignored: number;
  /** Killed (timeouts included) over every valid mutant, in percent; null when the file has none. */
  score: number | null;
}

/** Stryker's mutation score per file: a timeout counts as killed; ignored and invalid mutants count for nothing. */
export function fileScores(report: MutationReport): FileScore[] {
  return Object.entries(report.files)
    .map(([file, { mutants }]) => {
      const count = (...statuses: string[]) => mutants.filter((mutant) => statuses.includes(mutant.status)).length;
      const killed = count('Killed', 'Timeout');
      const survived = count('Survived');
      const noCoverage = count('NoCoverage');
      const valid = killed + survived + noCoverage;
      return { file, killed, survived, noCoverage, ignored: count('Ignored'), score: valid === 0 ? null : (100 * killed) / valid };
    })
    .sort((a, b) => (a.score ?? 100) - (b.score ?? 100) || a.file.localeCompare(b.file));
}

export function belowMinimum(scores: FileScore[]): FileScore[] {
  return scores.filter((row) => row.score !== null && row.score < minimumScore);
}

function table(scores: FileScore[]): string {
  const width = Math.max(...scores.map((row) => row.file.length), 4);
  const header = `${'file'.padEnd(width)}  score  killed  survived  no cover  ignored`;
  const rows = scores.map(
    (row) =>
      `${row.file.padEnd(width)}  ${(row.score === null ? 'n/a' : `${row.score.toFixed(1)}%`).padStart(5)}  ${String(row.killed).padStart(6)}  ${String(row.survived).padStart(8)}  ${String(row.noCoverage).padStart(8)}  ${String(row.ignored).padStart(7)}`,
  );
  const killed = scores.reduce((sum, row) => sum + row.killed, 0);
  const valid = scores.reduce((sum, row) => sum + row.killed + row.survived + row.noCoverage, 0);
  const total = `${'all files'.padEnd(width)}  ${`${((100 * killed) / valid).toFixed(1)}%`.padStart(5)}  ${String(killed).padStart(6)}  of ${valid} mutants`;
  return [header, ...rows, total].join('\n');
}

function survivors(report: MutationReport, only: string | undefined): string {
  const lines: string[] = [];
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    if (only && !file.includes(only)) continue;
    const sourceLines = source.split('\n');
    for (const mutant of mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage')) {
      const { line } = mutant.location.start;
      lines.push(`${file}:${line} ${mutant.status} ${mutant.mutatorName} → ${JSON.stringify(mutant.replacement ?? '')}\n    ${sourceLines[line - 1]?.trim()}`);
    }
  }
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reportFile = path.resolve(import.meta.dirname, '..', 'reports', 'mutation', 'mutation.json');
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as MutationReport;
  const scores = fileScores(report);
  console.log(table(scores));
  const flag = process.argv.indexOf('--survivors');
  if (flag >= 0) console.log(`\n${survivors(report, process.argv[flag + 1])}`);
  const failing = belowMinimum(scores);
  if (failing.length > 0) {
    console.log(`\n${failing.length} file(s) below ${minimumScore} %: ${failing.map((row) => row.file).join(', ')}`);
    process.exitCode = 1;
  }
}
