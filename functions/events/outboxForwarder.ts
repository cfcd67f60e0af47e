import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import * as z from 'zod/mini';
import { eventBus, type BusEntry, type PublishResult } from '#platform/eventBus.ts';
import { logger } from '#platform/logger.ts';
import { outboxEntity, outboxEventSchema } from '#store/outbox.ts';
import { eventSource } from '#contract/events.ts';

/**
 * Table stream → event bus. Only new outbox items are events; every other write on the table
 * rides the same stream and is ignored. Runs as the stream's Lambda in AWS and is called by
 * lib/local/streamPoller.ts here. A record the bus refuses is reported back, so the stream
 * hands it over again (at least once; receivers dedupe on the event id).
 */
const outboxItemSchema = z.object({
  entity: z.literal(outboxEntity),
  event: outboxEventSchema,
});

export async function handler(event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> {
  const pending: { sequenceNumber: string; entry: BusEntry }[] = [];
  let malformed: string | undefined;
  for (const record of event.Records) {
    const image = outboxImage(record);
    if (!image) continue;
    const parsed = outboxItemSchema.safeParse(image);
    if (!parsed.success) {
      // Our own bug. Refused, not skipped: after the stream consumer's retries it lands in the
      // undelivered queue (lib/aws/eventsStack.ts) where it can be replayed, instead of being lost.
      // What follows it is handed over again after it anyway, so it is not published now.
      logger.error('malformed outbox item', { sequenceNumber: record.dynamodb?.SequenceNumber, issues: parsed.error.issues });
      malformed = record.dynamodb?.SequenceNumber ?? '';
      break;
    }
    const outboxEvent = parsed.data.event;
    pending.push({
      sequenceNumber: record.dynamodb?.SequenceNumber ?? '',
      entry: {
        Source: eventSource,
        DetailType: outboxEvent.type,
        Detail: JSON.stringify(outboxEvent),
        Time: new Date(outboxEvent.createdAt),
      },
    });
  }
  const { failed }: PublishResult = pending.length > 0 ? await eventBus().publish(pending.map((item) => item.entry)) : { failed: [] };
  for (const failure of failed) {
    logger.warn('event not accepted by the bus', { sequenceNumber: pending[failure.index]?.sequenceNumber, error: failure.error });
  }
  return {
    batchItemFailures: [
      ...failed.map((failure) => pending[failure.index]?.sequenceNumber ?? ''),
      ...(malformed === undefined ? [] : [malformed]),
    ].map((itemIdentifier) => ({ itemIdentifier })),
  };
}

function outboxImage(record: DynamoDBRecord): Record<string, unknown> | undefined {
  if (record.eventName !== 'INSERT') return undefined;
  const image = record.dynamodb?.NewImage;
  if (image?.entity?.S !== outboxEntity) return undefined;
  // The Lambda event's attribute values are the same wire shapes the SDK unmarshals.
  return unmarshall(image as Record<string, AttributeValue>);
}
