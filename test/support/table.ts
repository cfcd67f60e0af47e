import { randomBytes } from 'node:crypto';
import { ensureTable } from '../../lib/local/dynamodbLocal.ts';
import { reloadConfig } from '#platform/config.ts';
import { resetDynamoClient } from '#store/client.ts';

/**
 * A fresh table, built from the same definition as production, for one test file.
 * Sets TABLE_NAME for every handler and store module in this worker.
 */
export async function useFreshTable(prefix = 'test'): Promise<string> {
  const name = `${prefix}-${randomBytes(6).toString('hex')}`;
  process.env.TABLE_NAME = name;
  reloadConfig();
  resetDynamoClient();
  await ensureTable(process.env.DYNAMODB_ENDPOINT, name);
  return name;
}
