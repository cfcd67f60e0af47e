import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { z } from 'zod';
import { logger } from './logger.ts';

/**
 * An SQS-fed event target (functions/contract/events.ts): each message's body is parsed by the
 * target's schema and handled on its own. A message that cannot be parsed or handled is reported
 * back (partial batch response), so the queue redelivers it and finally dead-letters it; the
 * others of the batch are not held back by it. Handlers are idempotent: delivery is at least once.
 */
export function queueConsumer<S extends z.ZodType>(
  failure: string,
  schema: S,
  handle: (message: z.infer<S>, record: SQSRecord) => Promise<void>,
): (event: SQSEvent) => Promise<SQSBatchResponse> {
  return async (event) => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        await handle(schema.parse(JSON.parse(record.body)), record);
      } catch (error) {
        logger.error(failure, { messageId: record.messageId, error: error as Error });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  };
}
