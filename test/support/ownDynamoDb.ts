import { afterAll, beforeAll } from 'vitest';
import { startDynamoDbLocal, type RunningDynamoDb } from '../../lib/local/dynamodbLocal.ts';

/**
 * A DynamoDB Local of this file's own, for the files that write at full speed (a 1,000-item batch,
 * 2,000 members, a restart re-driving every execution, the hostile-input walk over every route). On the run's shared instance they held its
 * locks long enough for the other file of the pair to fail ("too long waiting for a lock", an
 * `npm start` not back within 2 minutes, a payment or batch past the 10 s deadline), and left it slower for every file after them. Call it at
 * the top of the file: its beforeAll runs before the file's own and its afterAll after them, so the
 * services the file starts see this endpoint and are stopped before it is.
 */
export function useOwnDynamoDbLocal(): void {
  let own: RunningDynamoDb | undefined;
  beforeAll(async () => {
    own = await startDynamoDbLocal();
    process.env.DYNAMODB_ENDPOINT = own.endpoint;
  });
  afterAll(async () => {
    await own?.stop();
  });
}
