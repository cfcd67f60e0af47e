import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod/mini';
import { logger } from './logger.ts';

/**
 * What the messages of one batch read in common (an organization's webhook endpoint, who chose an
 * event type): the first message's read answers the others of the same batch, so a batch of ten
 * events of one organization reads it once, as if they had arrived at the same instant. A failed
 * read is not kept: the next message reads again.
 */
export type BatchReads = <T>(key: string, read: () => Promise<T>) => Promise<T>;

/** The messages a target's queue hands it at most at once (the event source mapping's batch size). */
export const queueBatchSize = 10;

/** How many times a target's queue hands it a message before the dead-letter queue takes it (the queue's maxReceiveCount). */
export const queueMaxReceiveCount = 5;

/**
 * An SQS-fed event target (functions/contract/events.ts): each message's body is parsed by the
 * target's schema and handled on its own. A message that cannot be parsed or handled is reported
 * back (partial batch response), so the queue redelivers it and finally dead-letters it; the
 * others of the batch are not held back by it. Handlers are idempotent: delivery is at least once.
 * `inParallel`: the messages of a batch are handled side by side rather than one after another
 * (what they read in common is still read once: the first read's promise answers the others).
 */
export function queueConsumer<S extends z.ZodMiniType>(
  failure: string,
  schema: S,
  handle: (message: z.infer<S>, record: SQSRecord, reads: BatchReads) => Promise<void>,
  { inParallel = false }: { inParallel?: boolean } = {},
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const shared = new Map<string, Promise<unknown>>();
    const reads: BatchReads = <T>(key: string, read: () => Promise<T>) => {
      let answer = shared.get(key) as Promise<T> | undefined;
      if (!answer) {
        answer = read();
        shared.set(key, answer);
        answer.catch(() => shared.delete(key));
      }
      return answer;
    };
    const handleRecord = async (record: SQSRecord) => {
      try {
        await handle(schema.parse(JSON.parse(record.body)), record, reads);
      } catch (error) {
        logger.error(failure, { messageId: record.messageId, error: error as Error });
        throw error;
      }
    };
    // A processor per batch: it keeps the batch's failures, and the local runtime may hand one
    // module two batches at once. By default one message after another: a mail or an audit
    // record waits for the one before it. A batch that failed whole is answered, not thrown: the
    // queue redelivers the same messages either way.
    return processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), { processInParallel: inParallel, throwOnFullBatchFailure: false });
  };
}

/**
 * An SQS-fed event target whose messages are handled together: the batch's parsed messages go to
 * `handleAll` in one call (the audit trail's one BatchWriteItem for its ten records), so its
 * writes must be the same whoever makes them and however often. A message that cannot be parsed
 * is reported back alone; when `handleAll` fails, every parsed message is (partial batch
 * response, as queueConsumer), and the queue redelivers them.
 */
export function queueBatchConsumer<S extends z.ZodMiniType>(
  failure: string,
  schema: S,
  handleAll: (messages: z.infer<S>[]) => Promise<void>,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const parsed = new Map<string, z.infer<S>>();
    for (const record of event.Records) {
      const message = schema.safeParse(parseBody(record.body));
      if (message.success) parsed.set(record.messageId, message.data);
    }
    const handled = parsed.size > 0 ? handleAll([...parsed.values()]) : Promise.resolve();
    // Awaited by every parsed message below; this keeps a failure before they await it from being unhandled.
    handled.catch(() => undefined);
    const handleRecord = async (record: SQSRecord) => {
      try {
        // A message left out of `parsed` fails here with its own parse error.
        if (!parsed.has(record.messageId)) schema.parse(JSON.parse(record.body));
        await handled;
      } catch (error) {
        logger.error(failure, { messageId: record.messageId, error: error as Error });
        throw error;
      }
    };
    return processPartialResponse(event, handleRecord, new BatchProcessor(EventType.SQS), { processInParallel: true, throwOnFullBatchFailure: false });
  };
}

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
