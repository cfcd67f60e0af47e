import { defineConfig } from 'vitest/config';

// The unit tests alone, for npm run mutation (docs/decisions/144): no DynamoDB Local, no global
// setup, no simulators. Left out: the files that synthesize or bundle the app, read the whole source
// tree or the docs (slow, and no domain rule in them), and the two that need the simulated stage's
// providers installed by test/support/setup.ts.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    exclude: [
      'test/unit/cdk.test.ts',
      'test/unit/asl.test.ts',
      'test/unit/openapi.test.ts',
      'test/unit/dependencies.test.ts',
      'test/unit/handlerSize.test.ts',
      'test/unit/stackTraceSources.test.ts',
      'test/unit/nodeRuntime.test.ts',
      'test/unit/deploymentDoc.test.ts',
      'test/unit/benchDashboard.test.ts',
      'test/unit/workflowShape.test.ts',
      'test/unit/fx.test.ts',
      'test/unit/onRampProvider.test.ts',
    ],
    pool: 'forks',
    maxWorkers: 1,
    // A file's first test pays for its imports; on a busy machine that can take seconds.
    testTimeout: 30_000,
  },
});
