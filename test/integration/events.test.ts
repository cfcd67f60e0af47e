import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord, DynamoDBStreamEvent, SQSEvent } from 'aws-lambda';
import { GetCommand, PutCommand, QueryCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { LocalEventBus } from '../../lib/local/eventBus.ts';
import { startStreamPoller, type StreamPoller } from '../../lib/local/streamPoller.ts';
import { LocalWorkflowRunner } from '../../lib/local/workflowRunner.ts';
import { handler as auditTrail } from '../../functions/events/auditTrail.ts';
import { handler as outboxForwarder } from '../../functions/events/outboxForwarder.ts';
import { useEventBus } from '#platform/eventBus.ts';
import { queueMaxReceiveCount } from '#platform/queueConsumer.ts';
import { executionName } from '#platform/workflow.ts';
import { countRequestCalls, dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { newOutboxEvent, outboxEntity, outboxPut, outboxStreamFilter, type OutboxEvent } from '#store/outbox.ts';
import { newWalletId, walletItem } from '#store/wallets.ts';
import { eventSource } from '#contract/events.ts';
import { eventually } from '../support/eventually.ts';
import { batches as recordedBatches } from '../support/recordingTarget.ts';

const until = <T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 15_000) => eventually(probe, { what, timeoutMs, intervalMs: 25 });

async function auditRecords(organizationId: string) {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
      ExpressionAttributeValues: { ':pk': `ORG#${organizationId}`, ':audit': 'AUDIT#' },
      ConsistentRead: true,
    }),
  );
  return Items ?? [];
}

describe('outbox → stream → bus → audit trail', () => {
  let bus: LocalEventBus;
  let poller: StreamPoller;
  let runner: LocalWorkflowRunner;

  beforeAll(async () => {
    const table = await useFreshTable('events');
    bus = new LocalEventBus({ retryDelayMs: 10 });
    useEventBus(bus);
    poller = await startStreamPoller({ tableName: table, endpoint: process.env.DYNAMODB_ENDPOINT, intervalMs: 50 });
    runner = new LocalWorkflowRunner({ retryIntervalOverrideMs: 0 });
  });
  afterAll(async () => {
    await runner?.stop();
    await poller?.stop();
    await bus?.stop();
    useEventBus(undefined);
  });

  it("carries the workflow's wallet.activated event to an audit record, once", async () => {
    const organizationId = 'org_ev1';
    const walletId = newWalletId();
    await dynamo().send(new TransactWriteCommand({ TransactItems: [walletItem({ organizationId, walletId, home: true })] }));
    const name = executionName(organizationId, walletId);
    await runner.start('walletProvisioning', name, { organizationId, walletId, activationWaitSeconds: 0 });
    expect((await runner.waitFor(name)).status).toBe('SUCCEEDED');

    const [audit] = await until(async () => {
      const records = await auditRecords(organizationId);
      return records.length > 0 ? records : undefined;
    }, 'the audit record');
    expect(audit).toMatchObject({
      entity: 'auditRecord',
      type: 'wallet.activated',
      organizationId,
      source: eventSource,
      data: { id: walletId, status: 'active' },
    });
    expect(audit?.eventId).toMatch(/^evt_/);

    // Everything else the workflow wrote (wallet update, execution record) rode the stream too and was ignored.
    await poller.drained();
    await bus.idle();
    expect(await auditRecords(organizationId)).toHaveLength(1);
    expect(bus.deadLetters).toEqual([]);

    // The same outbox event published again (a redelivery) reaches the target and writes nothing new.
    const { Item: outboxItem } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.outboxEvent(audit!.eventId as string) }),
    );
    const event = outboxItem?.event as OutboxEvent;
    expect(await bus.publish([{ Source: eventSource, DetailType: event.type, Detail: JSON.stringify(event) }])).toEqual({ failed: [] });
    await bus.idle();
    const after = await auditRecords(organizationId);
    expect(after).toHaveLength(1);
    expect(after[0]).toEqual(audit);
    expect(bus.deadLetters).toEqual([]);
  });

  it('treats a duplicate SQS delivery to the audit trail as a no-op', async () => {
    const organizationId = 'org_ev2';
    const event = newOutboxEvent('wallet.activated', organizationId, { id: 'wal_x' });
    const body = JSON.stringify({ version: '0', id: 'bus-1', source: eventSource, 'detail-type': event.type, time: event.createdAt, detail: event });
    const sqs = (messageId: string): SQSEvent => ({
      Records: [{
        messageId, receiptHandle: messageId, body, attributes: {} as never, messageAttributes: {}, md5OfBody: '',
        eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:auditTrail', awsRegion: 'us-east-1',
      }],
    });

    expect(await auditTrail(sqs('m1'))).toEqual({ batchItemFailures: [] });
    const [first] = await auditRecords(organizationId);
    expect(await auditTrail(sqs('m2'))).toEqual({ batchItemFailures: [] });
    expect(await auditRecords(organizationId)).toEqual([first]);
  });

  it('keeps a queue batch of events in one batch write, a malformed message reported alone', async () => {
    const organizationId = 'org_ev3';
    const events = [0, 1, 2].map((index) => newOutboxEvent('wallet.activated', organizationId, { id: `wal_${index}` }));
    const record = (messageId: string, body: string) => ({
      messageId, receiptHandle: messageId, body, attributes: {} as never, messageAttributes: {}, md5OfBody: '',
      eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:auditTrail', awsRegion: 'us-east-1',
    });
    const delivery = (event: OutboxEvent) => JSON.stringify({ version: '0', id: randomUUID(), source: eventSource, 'detail-type': event.type, time: event.createdAt, detail: event });
    // The third event twice (a duplicate delivery in the same batch), and one message that is no event.
    const batch: SQSEvent = {
      Records: [...events.map((event, index) => record(`m${index}`, delivery(event))), record('dup', delivery(events[2]!)), record('bad', '{"detail":{}}')],
    };

    const tally = countRequestCalls();
    expect(await auditTrail(batch)).toEqual({ batchItemFailures: [{ itemIdentifier: 'bad' }] });
    expect(tally.calls).toBe(1);
    const records = await auditRecords(organizationId);
    expect(records.map((item) => item.eventId)).toEqual(events.map((event) => event.id).sort());

    // Delivered again (new bus ids): the same items, nothing changed.
    expect(await auditTrail({ Records: batch.Records.slice(0, 3) })).toEqual({ batchItemFailures: [] });
    expect(await auditRecords(organizationId)).toEqual(records);
  });

  it('dead-letters an event its target keeps refusing, after the retries', async () => {
    const before = bus.deadLetters.length;
    await bus.publish([{ Source: eventSource, DetailType: 'broken.event', Detail: JSON.stringify({ not: 'an outbox event' }) }]);
    await bus.idle();
    expect(bus.deadLetters.slice(before)).toEqual([
      expect.objectContaining({ rule: 'auditTrail', attempts: queueMaxReceiveCount, event: expect.objectContaining({ 'detail-type': 'broken.event' }) }),
    ]);
  });

  it('hands a target what was queued together in batches of the queue\'s size, and retries only the message it refused', async () => {
    const recording = new LocalEventBus({
      retryDelayMs: 10,
      rules: [{ name: 'recording', description: 'test target', pattern: { source: ['test.batches'] }, target: 'test/support/recordingTarget.ts' }],
    });
    const entries = Array.from({ length: 25 }, (_, n) => ({ Source: 'test.batches', DetailType: 'x', Detail: JSON.stringify({ n, refuse: n === 12 ? 1 : 0 }) }));
    await recording.publish(entries);
    // What the stream poller's checkpoint waits for: every event through to its end, a retry included.
    await recording.settled();
    expect(recordedBatches.map((batch) => batch.length)).toEqual([10, 10, 5, 1]);
    expect(recordedBatches.slice(0, 3).flat().map((message) => message.detail.n)).toEqual(entries.map((_, n) => n));
    const [refused] = recordedBatches[3]!;
    expect(refused).toMatchObject({ receiveCount: 2, detail: { n: 12 } });
    expect(refused!.messageId).toBe(recordedBatches[1]![2]!.messageId);
    expect(recording.deadLetters).toEqual([]);
    await recording.stop();
  });

  it('refuses malformed entries at publish, as PutEvents does', async () => {
    const result = await bus.publish([
      { Source: eventSource, DetailType: 'x', Detail: '{not json' },
      { Source: 'someone.else', DetailType: 'x', Detail: '{}' },
    ]);
    expect(result.failed.map((failure) => failure.index)).toEqual([0]);
    await bus.idle();
  });
});

describe('the outbox forwarder', () => {
  const outboxRecord = (event: OutboxEvent, sequence: string): DynamoDBRecord => ({
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: sequence,
      NewImage: {
        pk: { S: `EVENT#${event.id}` },
        sk: { S: 'OUTBOX' },
        entity: { S: outboxEntity },
        event: {
          M: {
            id: { S: event.id },
            type: { S: event.type },
            organizationId: { S: event.organizationId },
            createdAt: { S: event.createdAt },
            data: { M: { id: { S: 'wal_1' } } },
          },
        },
      },
    },
  });

  it('reports the records the bus did not accept, and ignores everything that is not a new outbox item', async () => {
    const stoppedBus = new LocalEventBus();
    await stoppedBus.stop();
    useEventBus(stoppedBus);
    const event: DynamoDBStreamEvent = {
      Records: [
        outboxRecord(newOutboxEvent('wallet.activated', 'org_f', { id: 'wal_1' }), '100'),
        { ...outboxRecord(newOutboxEvent('wallet.activated', 'org_f', { id: 'wal_1' }), '101'), eventName: 'MODIFY' },
        { eventName: 'INSERT', dynamodb: { SequenceNumber: '102', NewImage: { entity: { S: 'wallet' } } } },
      ],
    };
    expect(await outboxForwarder(event)).toEqual({ batchItemFailures: [{ itemIdentifier: '100' }] });
    useEventBus(undefined);
  });

  it('refuses a malformed outbox item and publishes nothing after it (it comes again after it)', async () => {
    const stoppedBus = new LocalEventBus();
    await stoppedBus.stop();
    useEventBus(stoppedBus);
    const malformed: DynamoDBRecord = {
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '201', NewImage: { entity: { S: outboxEntity }, event: { M: { id: { S: 'evt_x' } } } } },
    };
    const event: DynamoDBStreamEvent = {
      Records: [
        outboxRecord(newOutboxEvent('wallet.activated', 'org_f', { id: 'wal_1' }), '200'),
        malformed,
        outboxRecord(newOutboxEvent('wallet.activated', 'org_f', { id: 'wal_1' }), '202'),
      ],
    };
    // 200 was offered to the (stopped) bus; 202 never was.
    expect(await outboxForwarder(event)).toEqual({ batchItemFailures: [{ itemIdentifier: '200' }, { itemIdentifier: '201' }] });
    useEventBus(undefined);
  });
});

describe('the stream poller', () => {
  it('hands a batch over again from the first record the handler reported as failed', async () => {
    const table = await useFreshTable('poller');
    const seen: string[] = [];
    let failOnce = true;
    const poller = await startStreamPoller({
      tableName: table,
      endpoint: process.env.DYNAMODB_ENDPOINT,
      intervalMs: 20,
      async handler(event) {
        const failures = [];
        for (const record of event.Records) {
          const id = record.dynamodb?.NewImage?.pk?.S ?? '';
          if (id === 'ITEM#2' && failOnce) {
            failOnce = false;
            failures.push({ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' });
            break;
          }
          seen.push(id);
        }
        return { batchItemFailures: failures };
      },
    });
    try {
      await dynamo().send(new TransactWriteCommand({
        TransactItems: ['ITEM#1', 'ITEM#2', 'ITEM#3'].map((pk) => ({ Put: { TableName: table, Item: { pk, sk: 'X' } } })),
      }));
      await until(async () => (seen.length >= 3 ? true : undefined), 'three records');
      await poller.drained();
      expect(seen.sort()).toEqual(['ITEM#1', 'ITEM#2', 'ITEM#3']);
      expect(failOnce).toBe(false);

      // LATEST at start: an outbox item written before a new poller starts is not handed to it.
      const late: string[] = [];
      await dynamo().send(new PutCommand({ TableName: table, Item: outboxPut(newOutboxEvent('x.y', 'org_p', {})).Put.Item }));
      const second = await startStreamPoller({
        tableName: table, endpoint: process.env.DYNAMODB_ENDPOINT, intervalMs: 20,
        async handler(event) {
          late.push(...event.Records.map((record) => record.dynamodb?.NewImage?.pk?.S ?? ''));
        },
      });
      await dynamo().send(new PutCommand({ TableName: table, Item: { pk: 'ITEM#4', sk: 'X' } }));
      await until(async () => (late.includes('ITEM#4') ? true : undefined), 'the record written after start');
      await second.stop();
      expect(late).toEqual(['ITEM#4']);
    } finally {
      await poller.stop();
    }

    // With the event source mapping's filter (outboxStreamFilter), only new outbox items reach the handler.
    const filtered: string[] = [];
    const outboxOnly = await startStreamPoller({
      tableName: table, endpoint: process.env.DYNAMODB_ENDPOINT, intervalMs: 20, filter: outboxStreamFilter,
      async handler(event) {
        filtered.push(...event.Records.map((record) => `${record.eventName} ${String(record.dynamodb?.NewImage?.entity?.S)}`));
      },
    });
    try {
      const outboxItem = outboxPut(newOutboxEvent('x.z', 'org_p', {})).Put.Item;
      await dynamo().send(new PutCommand({ TableName: table, Item: { pk: 'ITEM#5', sk: 'X', entity: 'other' } }));
      await dynamo().send(new PutCommand({ TableName: table, Item: outboxItem }));
      // A change to an outbox item is not a new event.
      await dynamo().send(new PutCommand({ TableName: table, Item: { ...outboxItem, touched: true } }));
      await until(async () => (filtered.length > 0 ? true : undefined), 'the outbox item');
      await outboxOnly.drained();
      expect(filtered).toEqual([`INSERT ${outboxEntity}`]);
    } finally {
      await outboxOnly.stop();
    }

    // A record the handler always refuses is given up after the retries; the ones after it flow.
    const handed: string[] = [];
    const stubborn = await startStreamPoller({
      tableName: table, endpoint: process.env.DYNAMODB_ENDPOINT, intervalMs: 10, maxRetries: 2,
      async handler(event) {
        for (const record of event.Records) {
          const id = record.dynamodb?.NewImage?.pk?.S ?? '';
          if (id === 'POISON') return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
          handed.push(id);
        }
        return { batchItemFailures: [] };
      },
    });
    try {
      await dynamo().send(new PutCommand({ TableName: table, Item: { pk: 'POISON', sk: 'X' } }));
      await dynamo().send(new PutCommand({ TableName: table, Item: { pk: 'AFTER', sk: 'X' } }));
      await until(async () => (handed.includes('AFTER') ? true : undefined), 'the record after the poison');
      expect(stubborn.undelivered.map((entry) => entry.record.dynamodb?.NewImage?.pk?.S)).toEqual(['POISON']);
      // The poller keeps what it gave up on as an UNDELIVERED item, whose own write rides the stream too.
      expect(handed.filter((id) => id !== 'UNDELIVERED')).toEqual(['AFTER']);
    } finally {
      await stubborn.stop();
    }
    // Nothing in this table is scanned by another test; the scan only proves the writes landed.
    const { Count } = await dynamo().send(new ScanCommand({ TableName: table, Select: 'COUNT' }));
    // Nine written here, and the one the poller kept of the record it gave up on (its UNDELIVERED item).
    expect(Count).toBe(10);
  });

  it('keeps its place in a checkpoint across a restart, moved only past what has settled', async () => {
    const table = await useFreshTable('checkpoint');
    const file = join(mkdtempSync(join(tmpdir(), 'checkpoint-')), 'stream-checkpoint.json');
    const put = (pk: string) => dynamo().send(new PutCommand({ TableName: table, Item: { pk, sk: 'X' } }));
    const handedTo = (seen: string[]) => async (event: DynamoDBStreamEvent) => {
      seen.push(...event.Records.map((record) => record.dynamodb?.NewImage?.pk?.S ?? ''));
    };
    // The bus's `settled` as the test lets it go: what the first poller hands over settles only when told.
    const opened = () => {
      let resolve!: () => void;
      return { promise: new Promise<void>((done) => (resolve = done)), resolve: () => resolve() };
    };
    const gates = [opened(), opened()];
    let gate = gates[0]!;
    const first: string[] = [];
    const poller = await startStreamPoller({
      tableName: table, endpoint: process.env.DYNAMODB_ENDPOINT, intervalMs: 10, startingPosition: 'TRIM_HORIZON',
      checkpoint: { file, settled: () => gate.promise }, handler: handedTo(first),
    });
    try {
      await put('A');
      await put('B');
      await until(async () => (first.length === 2 ? true : undefined), 'A and B handed over');
      await poller.drained();
      expect(existsSync(file)).toBe(false);
      // A and B settle: the checkpoint moves past them. C is handed over and never settles.
      gate = gates[1]!;
      gates[0]!.resolve();
      await until(async () => (existsSync(file) ? true : undefined), 'the checkpoint written');
      await put('C');
      await until(async () => (first.includes('C') ? true : undefined), 'C handed over');
      await poller.drained();
    } finally {
      await poller.stop();
    }
    expect(first).toEqual(['A', 'B', 'C']);

    // Started again on the same checkpoint: C again (it never settled), then what comes; not A or B.
    const second: string[] = [];
    const again = await startStreamPoller({
      tableName: table, endpoint: process.env.DYNAMODB_ENDPOINT, intervalMs: 10, startingPosition: 'TRIM_HORIZON',
      checkpoint: { file, settled: () => Promise.resolve() }, handler: handedTo(second),
    });
    try {
      await put('D');
      await until(async () => (second.includes('D') ? true : undefined), 'D handed over');
      await again.drained();
    } finally {
      await again.stop();
    }
    expect(second).toEqual(['C', 'D']);
  });
});
