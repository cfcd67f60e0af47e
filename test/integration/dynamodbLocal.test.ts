import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, beforeAll } from 'vitest';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { dynamoDbLocalDirectory, ensureTable, startDynamoDbLocal } from '../../lib/local/dynamodbLocal.ts';
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

  // DynamoDB Local's own queries on its stream records (its SQLiteDBAccess and SQLiteDBAccessJob in
  // the 2026-01-16 build): the lookup every call on a table makes (a subquery of that call's
  // statement), and GetRecords. Planned by its own SQLite (3.8.7), not Node's.
  it('finds a stream\'s records by index, for the lookup every call makes and for GetRecords (decision 162)', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'payments-plan-'));
    const dynamo = await startDynamoDbLocal({ dataDir });
    try {
      const lib = path.join(dynamoDbLocalDirectory(), 'DynamoDBLocal_lib');
      const statements = [
        'SELECT MIN(SequenceNumber) FROM us WHERE StreamID=?',
        'SELECT SequenceNumber, StreamRecord, OperationType, CreationDateTime FROM us WHERE StreamID = ? AND ShardID = ? AND SequenceNumber >= ? AND CreationDateTime > ? ORDER BY SequenceNumber ASC LIMIT ?',
      ];
      const output = execFileSync('java', [`-Djava.library.path=${lib}`, '-cp', path.join(lib, 'sqlite4java.jar'), path.join(import.meta.dirname, '../support/SqlitePlan.java'), path.join(dataDir, 'shared-local-instance.db'), ...statements], { encoding: 'utf8' });
      const plans = output.trim().split('\n').map((line) => line.split('\t'));
      const planOf = (n: number) => plans.filter(([statement]) => statement === String(n)).map(([, detail]) => detail);
      // The lookup reads the stream's first entry, not every record stored before the stream's.
      expect(planOf(1)).toEqual([expect.stringMatching(/^SEARCH TABLE us USING COVERING INDEX \w+ \(StreamID=\?\)$/)]);
      // GetRecords starts at the iterator's sequence number, not at the stream's first record: a
      // two-column index (StreamID, SequenceNumber) got `(StreamID=?)` here and walked the stream.
      expect(planOf(2)).toEqual([expect.stringMatching(/^SEARCH TABLE us USING (INDEX \w+ \(StreamID=\? AND rowid>\?\)|INTEGER PRIMARY KEY \(rowid>\?\))$/)]);
    } finally {
      await dynamo.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
