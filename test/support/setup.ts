import { DeleteTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { afterAll, inject } from 'vitest';
import { dynamoEndpointSettings } from '#store/client.ts';
import './failureLogs.ts';

// Every test file talks to its worker's DynamoDB Local (test/support/globalSetup.ts) in a table of its own.
const endpoints = inject('dynamoEndpoints');
const endpoint = endpoints[(Number(process.env.VITEST_POOL_ID ?? 1) - 1) % endpoints.length]!;
process.env.DYNAMODB_ENDPOINT = endpoint;
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
// Warnings and errors are logged, and shown only for a test that fails (test/support/failureLogs.ts).
process.env.LOG_LEVEL ??= 'WARN';
// Tasks answer Wait states at most 0 s (functions/platform/workflow.ts workflowWait): flows finish at once, paths still read.
process.env.WAIT_MAX_SECONDS ??= '0';
// EMF metric lines off, except in the test that reads them (test/integration/metrics.test.ts).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

// Tests run the `simulated` stage, as `npm start` does: its wiring registers the simulators behind the
// ports (decision 121), so a test that drives an operation without the service meets them too, and
// SES's local stand-in, the outbox (decision 126). Imported after the environment above is set: the
// outbox's module loads the logger, which reads LOG_LEVEL once.
await import('#simulators/install.ts');
await import('../../lib/local/mailOutbox.ts');

// DynamoDB Local slows down as the run's tables fill (measured: the files after a large one up to
// twice as slow), so each file drops the table it worked in once its own hooks are done (after
// hooks run in reverse order of registration: this one, registered first, runs last).
afterAll(async () => {
  const tableName = process.env.TABLE_NAME;
  if (!tableName) return;
  const client = new DynamoDBClient({ region: 'us-east-1', ...dynamoEndpointSettings(endpoint) });
  try {
    await client.send(new DeleteTableCommand({ TableName: tableName }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  } finally {
    client.destroy();
  }
});
