import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lambdaEntries } from '../../lib/aws/handlers.ts';

/**
 * An API handler or a workflow's Task entry point reads top to bottom in a minute: parse, authorize,
 * call the use case, shape the answer (docs/architecture.md). Past 40 lines it is doing the use case's
 * work, which belongs in functions/operations/.
 */
const root = path.resolve(import.meta.dirname, '../..');
const largestHandlerLines = 40;

describe('handlers', () => {
  const entries = lambdaEntries().filter((entry) => /^functions\/(api|tasks)\//.test(entry));

  it('are the API routes and the workflow tasks', () => {
    expect(entries.length).toBeGreaterThan(70);
  });

  it(`are at most ${largestHandlerLines} lines each`, () => {
    const long = entries
      .map((entry) => ({ entry, lines: readFileSync(path.join(root, entry), 'utf8').trimEnd().split('\n').length }))
      .filter(({ lines }) => lines > largestHandlerLines);
    expect(long).toEqual([]);
  });
});
