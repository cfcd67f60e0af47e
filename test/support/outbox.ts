import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#store/client.ts';

/**
 * The outbox items an organization's changes wrote (optionally of one event type), read straight
 * from the table: what integration tests check events against when no bus runs. A full consistent
 * scan, page after page: test tables are small.
 */
export async function outboxItemsOf(organizationId: string, type?: string): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: `entity = :entity AND #event.organizationId = :org${type === undefined ? '' : ' AND #event.#type = :type'}`,
        ExpressionAttributeNames: { '#event': 'event', ...(type === undefined ? {} : { '#type': 'type' }) },
        ExpressionAttributeValues: { ':entity': 'outboxEvent', ':org': organizationId, ...(type === undefined ? {} : { ':type': type }) },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
