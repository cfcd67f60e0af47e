import { inject } from 'vitest';

// Every test file talks to the run's DynamoDB Local; test/support/table.ts gives it a table of its own.
process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
process.env.AWS_REGION ??= 'us-east-1';
process.env.AWS_ACCESS_KEY_ID ??= 'local';
process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
process.env.LOG_LEVEL ??= 'SILENT';
// Tasks answer Wait states at most 0 s (functions/platform/workflow.ts workflowWait): flows finish at once, paths still read.
process.env.WAIT_MAX_SECONDS ??= '0';
process.env.AWS_SDK_JS_SUPPRESS_NODE_VERSION_WARNING ??= '1';
// EMF metric lines off, except in the test that reads them (test/integration/metrics.test.ts).
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
