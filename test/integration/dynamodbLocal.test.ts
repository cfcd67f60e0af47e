import { describe, expect, it, beforeAll } from 'vitest';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { ensureTable } from '../../lib/local/dynamodbLocal.ts';
import { createTableInput, globalIndexInput, table } from '#contract/table.ts';

const client = () => new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: 'us-east-1' });

describe('the table on DynamoDB Local', () => {
  let name: string;
  beforeAll(async () => {
    name = await useFreshTable();
  });

  it('is built from the shared definition, with its indexes and stream', async () => {
    const dynamo = client();
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: name }));
    const expected = createTableInput(name);
    expect(Table?.KeySchema).toEqual(expected.KeySchema);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(['gsi1v2', 'gsi2v2']);
    expect(Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === 'gsi1v2')?.Projection).toEqual(expect.objectContaining({ ProjectionType: 'INCLUDE' }));
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    dynamo.destroy();
  });

  it('moves a kept table from the retired indexes to their successors, filled from the items already there', async () => {
    const dynamo = client();
    const kept = `${name}-kept`;
    // A table as made before decision 127: gsi1 and gsi2, projecting ALL.
    await dynamo.send(new CreateTableCommand({ ...createTableInput(kept), GlobalSecondaryIndexes: table.retiredIndexes.map(globalIndexInput) }));
    await dynamo.send(new PutItemCommand({
      TableName: kept,
      Item: {
        pk: { S: 'ORG#org_1' }, sk: { S: 'TX#tx-1' }, transactionId: { S: 'tx-1' }, createdAt: { S: '2026-01-01T00:00:00.000Z' },
        timeline: { L: [{ M: { state: { S: 'FUNDED' } } }] }, gsi1pk: { S: 'ORG#org_1#TX' }, gsi1sk: { S: '2026-01-01T00:00:00.000Z#tx-1' },
      },
    }));

    await ensureTable(process.env.DYNAMODB_ENDPOINT, kept);

    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: kept }));
    const live = (Table?.GlobalSecondaryIndexes ?? []).filter((index) => index.IndexStatus !== 'DELETING').map((index) => index.IndexName);
    expect(live.sort()).toEqual(['gsi1v2', 'gsi2v2']);
    const { Items } = await dynamo.send(new QueryCommand({ TableName: kept, IndexName: 'gsi1v2', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': { S: 'ORG#org_1#TX' } } }));
    // The item is there, with what the index projects and not the rest.
    expect(Items).toHaveLength(1);
    expect(Items?.[0]?.transactionId).toEqual({ S: 'tx-1' });
    expect(Items?.[0]?.timeline).toBeUndefined();
    dynamo.destroy();
  });
});
