import { beforeAll, describe, expect, it } from 'vitest';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#store/client.ts';
import { useFreshTable } from '../support/table.ts';

/**
 * DynamoDB's item and transaction limits, measured against DynamoDB Local through the store's own
 * client: it enforces each exactly as DynamoDB documents it (ValidationException, or the
 * transaction cancelled with a ValidationError reason), so the local wiring adds nothing here.
 * Should an engine upgrade loosen one, this file fails and the limit must be held in the wiring.
 */
const itemLimitBytes = 400 * 1024;
const transactionItemLimit = 100;
const transactionLimitBytes = 4 * 1024 * 1024;

/**
 * An item of exactly `bytes` as DynamoDB sizes it: the UTF-8 bytes of each attribute name and
 * string value (pk, sk, pad).
 */
function itemOf(sk: string, bytes: number) {
  const fixed = 'pk'.length + 'limits'.length + 'sk'.length + sk.length + 'pad'.length;
  return { pk: 'limits', sk, pad: 'x'.repeat(bytes - fixed) };
}
const put = (item: Record<string, unknown>) => ({ Put: { TableName: tableName(), Item: item } });

async function refusal(write: Promise<unknown>): Promise<Error> {
  const error = await write.then(
    () => undefined,
    (thrown: unknown) => thrown as Error,
  );
  if (!error) throw new Error('DynamoDB Local accepted a write past the limit');
  return error;
}

describe('DynamoDB limits on DynamoDB Local', () => {
  beforeAll(async () => {
    await useFreshTable('dynamolimits');
  });

  it('an item of exactly 400 KB is written; one byte more is refused, by Put, BatchWrite and Update alike', async () => {
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: itemOf('exact', itemLimitBytes) }));

    const put401 = await refusal(dynamo().send(new PutCommand({ TableName: tableName(), Item: itemOf('over', itemLimitBytes + 1) })));
    expect(put401.name).toBe('ValidationException');
    expect(put401.message).toBe('Item size has exceeded the maximum allowed size');

    const batch = await refusal(dynamo().send(new BatchWriteCommand({ RequestItems: { [tableName()]: [{ PutRequest: { Item: itemOf('batch', itemLimitBytes + 1) } }] } })));
    expect(batch.name).toBe('ValidationException');

    const grown = await refusal(
      dynamo().send(new UpdateCommand({ TableName: tableName(), Key: { pk: 'limits', sk: 'exact' }, UpdateExpression: 'SET more = :one', ExpressionAttributeValues: { ':one': 'y' } })),
    );
    expect(grown.name).toBe('ValidationException');
    expect(grown.message).toBe('Item size to update has exceeded the maximum allowed size');
  });

  it('a transaction of 100 items is written; 101 are refused whole', async () => {
    const items = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => put(itemOf(`${prefix}${index}`, 100)));
    await dynamo().send(new TransactWriteCommand({ TransactItems: items('hundred', transactionItemLimit) }));
    const over = await refusal(dynamo().send(new TransactWriteCommand({ TransactItems: items('more', transactionItemLimit + 1) })));
    expect(over.name).toBe('ValidationException');
    expect(over.message).toContain('Member must have length less than or equal to 100');
  });

  it('a transaction of exactly 4 MB of items is written; one byte more is refused whole, and so is one item growing past 400 KB', async () => {
    // Ten items of 400 KB and one of 96 KB: 4,194,304 bytes.
    const full = Array.from({ length: 10 }, (_, index) => put(itemOf(`full${index}`, itemLimitBytes)));
    await dynamo().send(new TransactWriteCommand({ TransactItems: [...full, put(itemOf('tail', transactionLimitBytes - 10 * itemLimitBytes))] }));

    const fresh = Array.from({ length: 10 }, (_, index) => put(itemOf(`again${index}`, itemLimitBytes)));
    const over = await refusal(dynamo().send(new TransactWriteCommand({ TransactItems: [...fresh, put(itemOf('tail2', transactionLimitBytes - 10 * itemLimitBytes + 1))] })));
    expect(over.name).toBe('ValidationException');
    expect(over.message).toContain('Transaction payload size cannot exceed 4MB');

    const grown = await refusal(
      dynamo().send(
        new TransactWriteCommand({
          TransactItems: [{ Update: { TableName: tableName(), Key: { pk: 'limits', sk: 'full0' }, UpdateExpression: 'SET more = :one', ExpressionAttributeValues: { ':one': 'y' } } }],
        }),
      ),
    );
    expect(grown).toBeInstanceOf(TransactionCanceledException);
    expect((grown as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code)).toEqual(['ValidationError']);
  });
});
