import { describe, expect, it, beforeAll } from 'vitest';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { createTableInput } from '#contract/table.ts';

describe('the table on DynamoDB Local', () => {
  let name: string;
  beforeAll(async () => {
    name = await useFreshTable();
  });

  it('is built from the shared definition, with its indexes and stream', async () => {
    const client = new DynamoDBClient({ endpoint: process.env.DYNAMODB_ENDPOINT, region: 'us-east-1' });
    const { Table } = await client.send(new DescribeTableCommand({ TableName: name }));
    const expected = createTableInput(name);
    expect(Table?.KeySchema).toEqual(expected.KeySchema);
    expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(['gsi1', 'gsi2']);
    expect(Table?.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
    client.destroy();
  });
});
