import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { LocalEventBus } from '../../lib/local/eventBus.ts';
import { startStreamPoller, type StreamPoller } from '../../lib/local/streamPoller.ts';
import { projectRoot } from '../../lib/build/lambdaBundles.ts';
import { useEventBus } from '#platform/eventBus.ts';
import { dynamo, tableName } from '#store/client.ts';
import { newOutboxEvent, outboxPut } from '#store/outbox.ts';
import { eventually } from '../support/eventually.ts';

/**
 * The outbox stream's failure destination has a way back: what the forwarder gave up on (here the
 * bus refused it: it was down) is re-driven by `admin events replay-failed`, run as a deployer
 * runs it, and reaches its targets through the ordinary path.
 */
const query = async (pk: string, prefix?: string) => (await dynamo().send(new QueryCommand({
  TableName: tableName(),
  KeyConditionExpression: prefix ? 'pk = :pk AND begins_with(sk, :prefix)' : 'pk = :pk',
  ExpressionAttributeValues: { ':pk': pk, ...(prefix ? { ':prefix': prefix } : {}) },
  ConsistentRead: true,
}))).Items ?? [];

function admin(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(join(projectRoot, 'node_modules', '.bin', 'tsx'), ['bin/admin.ts', ...args], {
      cwd: projectRoot,
      env: { ...process.env, TABLE_NAME: tableName(), DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('admin events replay-failed', () => {
  let down: LocalEventBus;
  let up: LocalEventBus;
  let poller: StreamPoller;

  beforeAll(async () => {
    const table = await useFreshTable('replay');
    down = new LocalEventBus({ retryDelayMs: 10 });
    await down.stop();
    useEventBus(down);
    poller = await startStreamPoller({ tableName: table, endpoint: process.env.DYNAMODB_ENDPOINT, intervalMs: 20, maxRetries: 1 });
  });
  afterAll(async () => {
    await poller?.stop();
    await up?.stop();
    useEventBus(undefined);
  });

  it('re-drives an event the stream gave up on, once, through the bus to its targets', async () => {
    const organizationId = 'org_replay1';
    const event = newOutboxEvent('wallet.activated', organizationId, { id: 'wal_replay', status: 'active' });
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: outboxPut(event).Put.Item }));

    // The bus refused it on every try: it is held, as the on-failure queue holds it in AWS.
    const [held] = await eventually(async () => {
      const items = await query('UNDELIVERED');
      return items.length > 0 ? items : undefined;
    }, { what: 'the given-up record' });
    expect(held).toMatchObject({ entity: 'undeliveredStreamRecord' });
    expect(await query(`ORG#${organizationId}`, 'AUDIT#')).toEqual([]);

    // The bus is back; the operator replays.
    up = new LocalEventBus({ retryDelayMs: 10 });
    useEventBus(up);
    const replay = await admin('events', 'replay-failed');
    expect(replay.status, replay.stderr).toBe(0);
    expect(JSON.parse(replay.stdout.trim())).toEqual({ replayed: 1, eventIds: [event.id], empty: 0 });

    const [audit] = await eventually(async () => {
      const records = await query(`ORG#${organizationId}`, 'AUDIT#');
      return records.length > 0 ? records : undefined;
    }, { what: 'the audit record of the replayed event' });
    expect(audit).toMatchObject({ eventId: event.id, type: 'wallet.activated' });
    expect(await query('UNDELIVERED')).toEqual([]);

    // Nothing left to replay: a second run does nothing.
    const again = await admin('events', 'replay-failed');
    expect(JSON.parse(again.stdout.trim())).toEqual({ replayed: 0, eventIds: [], empty: 0 });
    await poller.drained();
    await up.idle();
    expect(await query(`ORG#${organizationId}`, 'AUDIT#')).toHaveLength(1);
  }, 120_000);
});
