import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { logger } from '#platform/logger.ts';
import { outboxEventSchema } from '#store/outbox.ts';
import { startChainDepositWorkflowOrThrow } from '#operations/chainDeposit/progress.ts';
import { startWithdrawalWorkflowOrThrow } from '#operations/withdrawal/intake.ts';

/**
 * Event rule target for `withdrawal.initiated` and `chain_deposit.settling`: starts the
 * operation's workflow. The request (or the custody notice) starts it right after its commit;
 * this is the safety net for one that died in between. Execution names are derived from the
 * operation, so a second start is refused by the engine and nothing runs twice.
 */
const eventSchema = z.object({
  'detail-type': z.enum(['withdrawal.initiated', 'chain_deposit.settling']),
  detail: outboxEventSchema.extend({ data: z.object({ withdrawalId: z.string().min(1).optional(), depositId: z.string().min(1).optional() }) }),
});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const message of event.Records) {
    try {
      const parsed = eventSchema.parse(JSON.parse(message.body));
      const { organizationId, data } = parsed.detail;
      if (parsed['detail-type'] === 'withdrawal.initiated' && data.withdrawalId) await startWithdrawalWorkflowOrThrow(organizationId, data.withdrawalId);
      else if (data.depositId) await startChainDepositWorkflowOrThrow(organizationId, data.depositId);
      else throw new Error('the event names no operation');
    } catch (error) {
      logger.error('workflow not started from its event', { messageId: message.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures };
}
