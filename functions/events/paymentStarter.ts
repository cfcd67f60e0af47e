import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { logger } from '#platform/logger.ts';
import { startOperation } from '#operations/kit/start.ts';
import { outboxEventSchema } from '#store/outbox.ts';

/**
 * Event rule target for `transaction.funded`: starts the payment's workflow. POST /transactions
 * starts it right after funding; this is the safety net for a request that died between its
 * commit and that start. The execution name is derived from the payment, so a second start is
 * refused by the engine and nothing runs twice.
 */
const fundedEventSchema = z.object({
  detail: outboxEventSchema.extend({ data: z.object({ transactionId: z.string().min(1) }) }),
});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      const { detail } = fundedEventSchema.parse(JSON.parse(message.body));
      await startOperation('payment', detail.organizationId, detail.data.transactionId);
    } catch (error) {
      logger.error('payment workflow not started from its funded event', { messageId: message.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures };
}
