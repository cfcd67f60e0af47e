import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    setupFiles: ['test/support/setup.ts'],
    // One DynamoDB Local for the whole run; each test file works in a table of its own.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
