import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { logger } from '#platform/logger.ts';
import { workflowEngine } from '#platform/workflow.ts';
import { onRampExecutionName } from '#operations/onRamp/intake.ts';
import { outboxEventSchema } from '#store/outbox.ts';

/**
 * Event rule target for `onramp.started`: starts the deposit's workflow. Whoever stored the deposit
 * (POST /treasury/onramp, POST /treasury/onramp/pix, an incoming wire) starts it right after its
 * commit; this is the safety net for one that died in between. The execution name is derived from
 * the deposit, so a second start is refused by the engine and nothing runs twice.
 */
const startedEventSchema = z.object({
  detail: outboxEventSchema.extend({ data: z.object({ onRampId: z.string().min(1) }) }),
});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const engine = await workflowEngine();
  for (const message of event.Records) {
    try {
      const { detail } = startedEventSchema.parse(JSON.parse(message.body));
      const input = { organizationId: detail.organizationId, onRampId: detail.data.onRampId };
      await engine.start('onRamp', onRampExecutionName(input.organizationId, input.onRampId), input);
    } catch (error) {
      logger.error('on-ramp workflow not started from its started event', { messageId: message.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures };
}
