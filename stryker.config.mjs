// npm run mutation (docs/decisions/144-mutation-testing.md): the domain's rules and the ledger's
// movement rules, mutated one change at a time, against the unit tests alone.
import { readFileSync } from 'node:fs';

/**
 * The ledger's movement rules are the pure part of functions/store/ledger.ts: the checks of a
 * movement and the items it writes (organizationDeltas, ledgerItems) and the deposit movement. Its
 * I/O (applyMovement's error mapping and neededOf, which only a refused write reaches; the reads) is
 * the integration tests' (test/integration/ledger.test.ts), which need DynamoDB Local. Found by their declarations, not by
 * fixed line numbers, so an edit above them does not shift the range.
 */
function ledgerMovementRules() {
  const file = 'functions/store/ledger.ts';
  const lines = readFileSync(file, 'utf8').split('\n');
  const line = (start) => {
    const index = lines.findIndex((text) => text.startsWith(start));
    if (index < 0) throw new Error(`${file}: no line starts with ${start}`);
    return index + 1;
  };
  /** The last line before the doc comment of the declaration that starts with `start`. */
  const before = (start) => {
    let index = line(start) - 1;
    while (index > 0 && !lines[index - 1].startsWith('/**')) index -= 1;
    return index - 1;
  };
  return [
    `${file}:${line('const largestAmount')}-${before('const maxAttempts')}`,
    `${file}:${line('export function depositEntryId')}-${before('export async function creditDeposit')}`,
  ];
}

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate: ['functions/domain/**/*.ts', ...ledgerMovementRules()],
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.unit.config.ts' },
  plugins: ['@stryker-mutator/vitest-runner', './test/mutation/messageText.mjs'],
  ignorers: ['message-text'],
  checkers: [],
  // Two cores shared with the other work on this machine.
  concurrency: 2,
  coverageAnalysis: 'perTest',
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['json', 'clear-text', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
