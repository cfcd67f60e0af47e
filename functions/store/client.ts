import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { config } from '#platform/config.ts';

/**
 * One DynamoDB client per process (per Lambda container), built on first use so that
 * the local launcher and tests can point it at DynamoDB Local before anything runs.
 * Every call is counted: the bench reads the counter to report calls per request.
 */
let documentClient: DynamoDBDocumentClient | undefined;
let calls = 0;

/** Per-request tally: concurrent requests in one process each count only their own calls. */
const requestTally = new AsyncLocalStorage<{ calls: number }>();

export function dynamo(): DynamoDBDocumentClient {
  if (!documentClient) {
    const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
    const base = new DynamoDBClient({
      region: AWS_REGION,
      ...(DYNAMODB_ENDPOINT
        ? { endpoint: DYNAMODB_ENDPOINT, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
        : {}),
      maxAttempts: 3,
    });
    base.middlewareStack.add(
      (next) => async (args) => {
        calls += 1;
        const tally = requestTally.getStore();
        if (tally) tally.calls += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countDynamoCalls' },
    );
    documentClient = DynamoDBDocumentClient.from(base, {
      marshallOptions: { removeUndefinedValues: true, convertEmptyValues: false },
      unmarshallOptions: { wrapNumbers: false },
    });
  }
  return documentClient;
}

export function tableName(): string {
  return config().TABLE_NAME;
}

/** Calls made by this process since it started (read by the bench and by request logs). */
export function dynamoCallCount(): number {
  return calls;
}

/**
 * Start counting the DynamoDB calls of the current request (everything that follows in this
 * async context); read the tally from the returned object.
 */
export function countRequestCalls(): { calls: number } {
  const tally = { calls: 0 };
  requestTally.enterWith(tally);
  return tally;
}

/** Drop the client so the next call builds one from the current configuration. */
export function resetDynamoClient(): void {
  documentClient?.destroy();
  documentClient = undefined;
}
