import { monotonicFactory } from 'ulid';
import * as z from 'zod/mini';
import { keys } from './keys.ts';
import { tableName } from './client.ts';

/**
 * The transactional outbox. A state change and its event are written in one TransactWriteItems:
 * put `outboxPut(...)` beside the state update. DynamoDB Streams carry the item to the bus
 * through the outbox forwarder (the stream's Lambda in AWS, fed by lib/local/streamPoller.ts here;
 * docs/decisions/021); DynamoDB's TTL removes it later.
 */
export const outboxEntity = 'outboxEvent';

/**
 * The stream records that are events: new outbox items. The stream's event source mapping hands
 * only these to the forwarder (its filter criteria, lib/aws/eventsStack.ts), and
 * lib/local/streamPoller.ts applies the same filter here.
 */
export const outboxStreamFilter = { eventName: 'INSERT', entity: outboxEntity } as const;

/** Kept a week after writing: long enough for any stream consumer, short enough to stay small. */
const outboxRetentionSeconds = 7 * 24 * 3600;

const nextUlid = monotonicFactory();

/** The event as it travels: outbox item, stream, bus, queues. Consumers parse it with this. */
export const outboxEventSchema = z.object({
  /** `evt_<ulid>`: unique, time-ordered; receivers dedupe on it. */
  id: z.string().check(z.minLength(1)),
  type: z.string().check(z.minLength(1)),
  organizationId: z.string().check(z.minLength(1)),
  createdAt: z.string().check(z.minLength(1)),
  /** The same object the matching GET returns. */
  data: z.unknown(),
});

export type OutboxEvent<T = unknown> = Omit<z.infer<typeof outboxEventSchema>, 'data'> & { data: T };

export function newOutboxEvent<T>(type: string, organizationId: string, data: T, now = new Date()): OutboxEvent<T> {
  return { id: `evt_${nextUlid(now.getTime())}`, type, organizationId, createdAt: now.toISOString(), data };
}

/** The Put to include in the same transaction as the state change. */
export function outboxPut(event: OutboxEvent) {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.outboxEvent(event.id),
        entity: outboxEntity,
        event,
        ttl: Math.floor(Date.parse(event.createdAt) / 1000) + outboxRetentionSeconds,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
