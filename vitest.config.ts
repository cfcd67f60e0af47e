import { defineConfig } from 'vitest/config';
import LongestFirst from './test/support/sequencer.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    setupFiles: ['test/support/setup.ts'],
    // One DynamoDB Local for the whole run; each test file works in a table of its own.
    pool: 'forks',
    // Two files at a time even on two cores: most of a file's time is spent waiting on DynamoDB
    // Local, and every file has a table of its own (vitest's default here would be one).
    maxWorkers: 2,
    // Longest files first from the durations measured here, even on a fresh clone (test/support/sequencer.ts).
    sequence: { sequencer: LongestFirst },
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
