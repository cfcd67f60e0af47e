import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';

/**
 * Runs a data migration (a scan over the whole table) unless it has run to its end on this table
 * before: `npm start` with DATA_DIR then scans once, not at every start. The marker is written only
 * after a complete run, so one cut short runs again next time; migrations are idempotent anyway.
 * Data written later by an older version is not seen: the admin CLI's commands run them again.
 */
export async function runMigrationOnce<T extends Record<string, unknown>>(name: string, migrate: () => Promise<T>): Promise<{ ran: boolean; result?: T }> {
  const marker = keys.migration(name);
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: marker, ConsistentRead: true }));
  if (Item) return { ran: false };
  const result = await migrate();
  await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...marker, entity: 'migration', name, result, completedAt: new Date().toISOString() } }));
  return { ran: true, result };
}
