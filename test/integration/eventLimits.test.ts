import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeClient, type PutEventsCommandOutput } from '@aws-sdk/client-eventbridge';
import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { LocalEventBus, putEventsTooLarge, sqsMaxMessageBytes } from '../../lib/local/eventBus.ts';
import { startStreamPoller, type StreamPoller } from '../../lib/local/streamPoller.ts';
import { EventBridgeBus, putEventsCalls, putEventsEntryBytes, putEventsMaxBytes, useEventBus, type BusEntry } from '#platform/eventBus.ts';
import { config } from '#platform/config.ts';
import { dynamo, tableName } from '#store/client.ts';
import { newOutboxEvent, outboxPut, outboxStreamFilter } from '#store/outbox.ts';
import type { EventRule } from '#contract/events.ts';
import { useFreshTable } from '../support/table.ts';
import { eventually } from '../support/eventually.ts';
import { batches as recorded } from '../support/recordingTarget.ts';

/**
 * EventBridge's PutEvents limit (docs/decisions/102: 256 KiB a call, counted with EventBridge's
 * entry formula) and SQS's message limit (256 KiB) where the local bus stands in for them, and what
 * the callers do when an event crosses one, as they would in AWS.
 */
const source = 'limits.test';
const detailType = 'limits.sized';

/** An entry of exactly `bytes` by EventBridge's count (Time 14 + Source + DetailType + Detail). */
function entryOf(bytes: number, n = 0): BusEntry {
  const empty = JSON.stringify({ n, pad: '' });
  const overhead = 14 + source.length + detailType.length + empty.length;
  return { Source: source, DetailType: detailType, Time: new Date('2026-03-01T00:00:00.000Z'), Detail: JSON.stringify({ n, pad: 'x'.repeat(bytes - overhead) }) };
}

/** The event EventBridge hands a rule's SQS queue for an entry: its documented envelope around the detail. */
function queuedMessageBytes(entry: BusEntry): number {
  return Buffer.byteLength(
    JSON.stringify({
      version: '0',
      id: randomUUID(),
      'detail-type': entry.DetailType,
      source: entry.Source,
      account: '000000000000',
      time: entry.Time!.toISOString(),
      region: config().AWS_REGION,
      resources: [],
      detail: JSON.parse(entry.Detail),
    }),
  );
}

const recordingRule: EventRule = { name: 'recording', description: 'test', pattern: { source: [source] }, target: 'test/support/recordingTarget.ts' };
const delivered = () => recorded.flat().map((message) => message.detail.n);

describe("EventBridge's entry size, as EventBridge counts it", () => {
  it('counts Time as 14 bytes, Source, DetailType, Detail and each resource in UTF-8', () => {
    expect(putEventsEntryBytes({ Source: 'ab', DetailType: 'c', Detail: '{}' })).toBe(5);
    expect(putEventsEntryBytes({ Source: 'ab', DetailType: 'c', Detail: '{}', Time: new Date() })).toBe(19);
    expect(putEventsEntryBytes({ Source: 'ab', DetailType: 'c', Detail: '{"n":"é€😀"}', Resources: ['arn:x', 'ü'] })).toBe(2 + 1 + (6 + 2 + 3 + 4 + 2) + (5 + 2)); // é 2, € 3, 😀 4, ü 2 bytes
    expect(putEventsEntryBytes(entryOf(1000))).toBe(1000);
  });

  it('groups entries into PutEvents calls of at most 10 entries and 256 KiB, in order; an entry past the limit goes alone', () => {
    const calls = putEventsCalls([...Array.from({ length: 12 }, (_, n) => entryOf(100, n)), entryOf(200_000, 12), entryOf(100_000, 13), entryOf(putEventsMaxBytes + 1, 14), entryOf(100, 15)]);
    // [start, entries, bytes]: ten small ones; two small ones and 200,000 (200,200 fit); 100,000 would not fit beside them.
    expect(calls.map((call) => [call.start, call.entries.length, call.bytes])).toEqual([
      [0, 10, 1000],
      [10, 3, 200_200],
      [13, 1, 100_000],
      [14, 1, putEventsMaxBytes + 1],
      [15, 1, 100],
    ]);
  });
});

describe('the AWS adapter (EventBridgeBus) against PutEvents answering as EventBridge does', () => {
  it('fails only the entries of the call EventBridge refused, and sends the others', async () => {
    // EventBridge itself, reduced to its size rule: a call past the limit is a ValidationException.
    const client = new EventBridgeClient({ region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const sent: number[][] = [];
    client.middlewareStack.add(
      () => async (args) => {
        const entries = (args.input as { Entries: BusEntry[] }).Entries;
        sent.push(entries.map((entry) => (JSON.parse(entry.Detail) as { n: number }).n));
        if (entries.reduce((sum, entry) => sum + putEventsEntryBytes({ ...entry, Time: entry.Time ?? undefined }), 0) > putEventsMaxBytes) {
          throw Object.assign(new Error(putEventsTooLarge), { name: 'ValidationException' });
        }
        const output: PutEventsCommandOutput = { $metadata: {}, FailedEntryCount: 0, Entries: entries.map(() => ({ EventId: randomUUID() })) };
        return { output, response: {} };
      },
      { step: 'initialize', name: 'eventBridgeStandIn' },
    );
    const bus = new EventBridgeBus('bus', client);
    const { failed } = await bus.publish([entryOf(1000, 0), entryOf(putEventsMaxBytes + 1, 1), entryOf(1000, 2)]);
    expect(failed).toEqual([{ index: 1, error: `ValidationException: ${putEventsTooLarge}` }]);
    expect(sent).toEqual([[0], [1], [2]]);
  });
});

describe('the local bus refuses what EventBridge and SQS refuse for size', () => {
  let bus: LocalEventBus;
  beforeEach(async () => {
    await bus?.stop();
    recorded.length = 0;
    bus = new LocalEventBus({ rules: [recordingRule], retryDelayMs: 10 });
  });
  afterAll(async () => {
    await bus?.stop();
  });

  it('a call past 256 KiB is refused whole with ValidationException; the calls beside it are delivered', async () => {
    const { failed } = await bus.publish([entryOf(1000, 0), entryOf(putEventsMaxBytes + 1, 1), entryOf(1000, 2)]);
    expect(failed).toEqual([{ index: 1, error: `ValidationException: ${putEventsTooLarge}` }]);
    await bus.idle();
    expect(delivered().sort()).toEqual([0, 2]);
  });

  it('an entry of exactly 256 KiB is accepted, but its event is past what SQS takes: the target never gets it', async () => {
    const entry = entryOf(putEventsMaxBytes, 3);
    expect(queuedMessageBytes(entry)).toBeGreaterThan(sqsMaxMessageBytes);
    const { failed } = await bus.publish([entry]);
    expect(failed).toEqual([]);
    await bus.idle();
    expect(delivered()).toEqual([]);
    expect(bus.failedInvocations).toEqual([
      expect.objectContaining({ rule: 'recording', error: expect.stringContaining(`Message must be shorter than ${sqsMaxMessageBytes} bytes`) }),
    ]);
    expect(bus.deadLetters).toEqual([]);
  });

  it('an event whose message is exactly 256 KiB reaches the target; one byte more does not', async () => {
    // The envelope EventBridge adds around the detail, measured on an entry of known size.
    const probe = entryOf(10_000, 4);
    const envelope = queuedMessageBytes(probe) - 10_000;
    const fits = entryOf(sqsMaxMessageBytes - envelope, 4);
    const over = entryOf(sqsMaxMessageBytes - envelope + 1, 5);
    expect(queuedMessageBytes(fits)).toBe(sqsMaxMessageBytes);
    expect((await bus.publish([fits, over])).failed).toEqual([]);
    await bus.idle();
    expect(delivered()).toEqual([4]);
    expect(bus.failedInvocations.map((failure) => (failure.event.detail as { n: number }).n)).toEqual([5]);
  });
});

describe('an outbox event past the limit, through the stream and the forwarder', () => {
  let bus: LocalEventBus;
  let poller: StreamPoller;

  beforeAll(async () => {
    const table = await useFreshTable('eventlimits');
    bus = new LocalEventBus({ retryDelayMs: 10 });
    useEventBus(bus);
    poller = await startStreamPoller({ tableName: table, endpoint: process.env.DYNAMODB_ENDPOINT, intervalMs: 50, maxRetries: 2, filter: outboxStreamFilter });
  });
  afterAll(async () => {
    await poller?.stop();
    await bus?.stop();
    useEventBus(undefined);
  });

  it('is refused alone, handed over again until the stream gives it up, and never stops the events after it', async () => {
    const organizationId = 'org_limits';
    const events = [
      newOutboxEvent('limits.small', organizationId, { n: 1 }),
      newOutboxEvent('limits.large', organizationId, { n: 2, pad: 'x'.repeat(putEventsMaxBytes) }),
      newOutboxEvent('limits.small', organizationId, { n: 3 }),
    ];
    for (const event of events) await dynamo().send(new TransactWriteCommand({ TransactItems: [outboxPut(event)] }));

    const audited = await eventually(
      async () => {
        const { Items = [] } = await dynamo().send(
          new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)', ExpressionAttributeValues: { ':pk': `ORG#${organizationId}`, ':audit': 'AUDIT#' }, ConsistentRead: true }),
        );
        return Items.length === 2 && poller.undelivered.length === 1 ? Items : undefined;
      },
      { what: 'the two small events audited and the large one given up', timeoutMs: 20_000, intervalMs: 50 },
    );
    expect(audited.map((item) => item.eventId).sort()).toEqual([events[0]!.id, events[2]!.id].sort());
    const [given] = poller.undelivered;
    expect(given!.record.dynamodb?.NewImage?.event?.M?.id?.S).toBe(events[1]!.id);
    expect(bus.deadLetters).toEqual([]);
  });
});
