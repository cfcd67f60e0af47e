import { describe, expect, it } from 'vitest';
import { belowMinimum, fileScores, type MutationReport } from '../../bin/mutationReport.ts';

const at = { start: { line: 1, column: 1 } };
const mutants = (...statuses: string[]) => statuses.map((status) => ({ mutatorName: 'BooleanLiteral', status, location: at }));

describe('npm run mutation\'s per-file verdict', () => {
  it('scores each file as Stryker does: timeouts are killed, ignored and invalid mutants count for nothing', () => {
    const report: MutationReport = {
      files: {
        'a.ts': { source: '', mutants: mutants('Killed', 'Killed', 'Timeout', 'Survived', 'Ignored', 'CompileError', 'RuntimeError') },
        'b.ts': { source: '', mutants: mutants(...Array<string>(9).fill('Killed'), 'NoCoverage') },
        'c.ts': { source: '', mutants: mutants('Ignored') },
      },
    };
    const scores = fileScores(report);
    expect(scores.map((row) => [row.file, row.score])).toEqual([['a.ts', 75], ['b.ts', 90], ['c.ts', null]]);
    expect(scores[0]).toMatchObject({ killed: 3, survived: 1, noCoverage: 0, ignored: 1 });
    expect(belowMinimum(scores).map((row) => row.file)).toEqual(['a.ts']);
  });
});
