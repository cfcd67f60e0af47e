/**
 * What one DynamoDB call of each kind costs on this machine: DynamoDB Local's CPU (its JVM, read
 * from /proc) and this process's (the AWS SDK's serialization, signing and HTTP, and the kernel's
 * loopback TCP under its socket writes), per call. The payments figure is bound by CPU on two cores;
 * with these, a payment's calls (payments.perPayment) say where its CPU goes (docs/capacity.md).
 *
 * The calls go to the service's own table, under keys of their own that stay there (the section
 * runs after every other that uses the table), in its warmed DynamoDB Local, through a bare client of
 * the AWS SDK the service uses (none of the local grant check or call counting), four at a time;
 * the items are about 1 KB, like a transaction's. Not a table of their own: every call on a table
 * makes DynamoDB Local look up the lowest sequence number of that table's stream in the record
 * table all streams share, which costs little when the first record it meets is the table's and a
 * walk of every other stream's records when the table has none yet.
 * A table created after the http section measured 3.2 ms a GetItem and 52.7 ms a transaction, the
 * service's own table 0.31 and 5.4 (a trap of the emulator, not of DynamoDB).
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { dynamoEndpointSettings } from '#store/client.ts';
import type { LocalService } from '../lib/local/service.ts';
import { dynamoCpuMs, round } from './payments.ts';

const concurrency = 4;
const warmUpCalls = 1000;
const measuredCalls = 2000;
const padding = 'x'.repeat(900);

export async function storeCostFigures({ service, log }: { service: LocalService; log: (message: string) => void }) {
  const { tableName } = service;
  const base = new DynamoDBClient({ region: 'us-east-1', ...dynamoEndpointSettings(service.dynamoEndpoint) });
  const client = DynamoDBDocumentClient.from(base);
  let serial = 0;
  /** A new item, with the list index's keys as most of ours carry. */
  const item = (pk: string, sk: string) => ({ pk, sk, entity: 'bench', padding, gsi1pk: `${pk}#LIST`, gsi1sk: `${sk}#${(serial += 1)}` });
  const run = `STORECOST#${Date.now()}`;
  const calls: Record<string, (i: number) => Promise<unknown>> = {
    GetItem: (i) => client.send(new GetCommand({ TableName: tableName, Key: { pk: `${run}#HOT#${i % 64}`, sk: 'ITEM' }, ConsistentRead: true })),
    Query: (i) => client.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `${run}#LIST#${i % 16}` }, ConsistentRead: true })),
    'PutItem (new, conditional)': (i) => client.send(new PutCommand({ TableName: tableName, Item: item(`${run}#NEW#${i}`, 'ITEM'), ConditionExpression: 'attribute_not_exists(pk)' })),
    'UpdateItem (ALL_NEW)': (i) =>
      client.send(
        new UpdateCommand({ TableName: tableName, Key: { pk: `${run}#HOT#${i % 64}`, sk: 'ITEM' }, UpdateExpression: 'SET n = :n', ExpressionAttributeValues: { ':n': i }, ReturnValues: 'ALL_NEW' }),
      ),
    'BatchWriteItem (3 new)': (i) =>
      client.send(new BatchWriteCommand({ RequestItems: { [tableName]: [0, 1, 2].map((k) => ({ PutRequest: { Item: item(`${run}#BATCH#${i}`, `ITEM#${k}`) } })) } })),
    // A payment's: its balance updated, four new items (journal entry, payment, statement line, event).
    'TransactWriteItems (1 update, 4 new)': (i) =>
      client.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: { TableName: tableName, Key: { pk: `${run}#BALANCE#${i % 16}`, sk: 'ITEM' }, UpdateExpression: 'ADD v :one', ExpressionAttributeValues: { ':one': 1 } } },
            ...['JOURNAL', 'TX', 'FEELINE', 'EVENT'].map((sk) => ({ Put: { TableName: tableName, Item: item(`${run}#TX#${i}`, sk), ConditionExpression: 'attribute_not_exists(pk)' } })),
          ],
        }),
      ),
  };
  try {
    for (let i = 0; i < 64; i += 1) await client.send(new PutCommand({ TableName: tableName, Item: item(`${run}#HOT#${i}`, 'ITEM') }));
    for (let list = 0; list < 16; list += 1) for (let k = 0; k < 5; k += 1) await client.send(new PutCommand({ TableName: tableName, Item: item(`${run}#LIST#${list}`, `ITEM#${k}`) }));
    const perCall: Record<string, { dynamodbLocalCpuMs: number | null; serviceCpuMs: number; callsPerSecond: number }> = {};
    for (const [name, call] of Object.entries(calls)) {
      log(`store costs: ${name}`);
      // Keys past the measured range: the warm-up's new items are not the measured ones.
      await pMap(Array.from({ length: warmUpCalls }, (_, i) => measuredCalls + i), call, { concurrency });
      const javaBefore = dynamoCpuMs(service.dynamoPid);
      const cpuBefore = process.cpuUsage();
      const started = performance.now();
      await pMap(Array.from({ length: measuredCalls }, (_, i) => i), call, { concurrency });
      const seconds = (performance.now() - started) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const javaAfter = dynamoCpuMs(service.dynamoPid);
      perCall[name] = {
        dynamodbLocalCpuMs: javaBefore === undefined || javaAfter === undefined ? null : round((javaAfter - javaBefore) / measuredCalls),
        serviceCpuMs: round((cpu.user + cpu.system) / 1000 / measuredCalls),
        callsPerSecond: round(measuredCalls / seconds, 0),
      };
    }
    return {
      perCall,
      settings: { concurrency, calls: measuredCalls, itemBytes: 'about 1 KB', table: 'the service\'s own, under keys of this section\'s' },
      note: 'CPU per call: DynamoDB Local\'s JVM (/proc, 10 ms ticks) and this process (the AWS SDK and the kernel\'s loopback TCP under its writes); a payment\'s calls are in payments.perPayment',
    };
  } finally {
    base.destroy();
  }
}
