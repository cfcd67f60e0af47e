import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { dynamo, queryPrefix, sortKeyPrefix, tableName } from '#store/client.ts';
import { useFreshTable } from '../support/table.ts';

/**
 * Prefix queries are key ranges (docs/decisions/097): the same items as begins_with, and never the
 * one extra key BETWEEN's inclusive upper bound would let in.
 */
beforeAll(async () => {
  await useFreshTable('sort-key-prefix');
  const sortKeys = ['MEMBER#', 'MEMBER#01', 'MEMBER#zz~', 'MEMBER$', 'MEMBER$01', 'MEMBE', 'MEMBEQ#1', 'MEMBERS#1', 'APIKEY#1', 'NOTIFY#a#1'];
  for (const sk of sortKeys) await dynamo().send(new PutCommand({ TableName: tableName(), Item: { pk: 'ORG#prefix', sk, label: sk } }));
  await dynamo().send(new PutCommand({ TableName: tableName(), Item: { pk: 'ORG#other', sk: 'MEMBER#02' } }));
});

describe('queryPrefix', () => {
  it('answers exactly the keys that start with the prefix, in the partition asked', async () => {
    const items = await queryPrefix('ORG#prefix', 'MEMBER#', { ConsistentRead: true });
    expect(items.map((item) => item.sk)).toEqual(['MEMBER#', 'MEMBER#01', 'MEMBER#zz~']);
  });

  it('keeps the order asked for and a filter of the caller', async () => {
    const items = await queryPrefix('ORG#prefix', 'MEMBER#', {
      ScanIndexForward: false,
      FilterExpression: 'label <> :skipped',
      ExpressionAttributeValues: { ':skipped': 'MEMBER#01' },
      ConsistentRead: true,
    });
    expect(items.map((item) => item.sk)).toEqual(['MEMBER#zz~', 'MEMBER#']);
  });

  it('refuses a prefix without an ASCII last character to take the successor of', () => {
    expect(() => sortKeyPrefix('ORG#prefix', '')).toThrow(/printable ASCII/);
    expect(() => sortKeyPrefix('ORG#prefix', 'MEMBER#\u{1F600}')).toThrow(/printable ASCII/);
  });

  it('is the only way prefix queries are written: no begins_with on a sort key in a key condition', () => {
    const offenders: string[] = [];
    const walk = (directory: string) => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        const path = join(directory, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (path.endsWith('.ts') && /KeyConditionExpression:[^\n]*begins_with/.test(readFileSync(path, 'utf8'))) offenders.push(path);
      }
    };
    for (const root of ['functions', 'lib', 'bin']) walk(root);
    expect(offenders).toEqual([]);
  });
});
