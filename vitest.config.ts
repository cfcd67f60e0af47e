import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.ts';

/** Every directory of tests but the unit tests': a new one is run with the service, never left out. */
const serviceDirectories = readdirSync(join(import.meta.dirname, 'test'), { withFileTypes: true }).filter((entry) => entry.isDirectory() && entry.name !== 'unit').map((entry) => entry.name);
/** Unit files that need the simulated stage's providers installed by test/support/setup.ts. */
const unitFilesWithProviders = ['test/unit/fx.test.ts', 'test/unit/onRampProvider.test.ts'];

export default defineConfig({
  test: {
    pool: 'forks',
    // Two files at a time even on two cores: most of a file's time is spent waiting on DynamoDB
    // Local, and every file has a table of its own (vitest's default here would be one).
    maxWorkers: 2,
    // Longest files first from the durations measured here, even on a fresh clone (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          // Pure rules and build checks: no DynamoDB Local, no simulators, and one process per worker
          // for all of them (docs/decisions/149): each file's own process and the services' setup
          // cost these files 37 s of a 50 s run, the tests themselves 21 s.
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          exclude: unitFilesWithProviders,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'service',
          // A hang's net, not a speed check (the bench measures speed): on a loaded two-core CI run a
          // test that takes 5 s alone has taken past 30 s beside a file with a DynamoDB Local of its
          // own (batches.test twice, payments.test, the ledger's property); each wait inside a test
          // keeps its own deadline.
          testTimeout: 60_000,
          include: [...serviceDirectories.map((directory) => `test/${directory}/**/*.test.ts`), ...unitFilesWithProviders],
          // One DynamoDB Local for the whole run; each test file works in a table of its own.
          globalSetup: ['test/support/globalSetup.ts'],
          setupFiles: ['test/support/setup.ts'],
        },
      },
    ],
  },
});
