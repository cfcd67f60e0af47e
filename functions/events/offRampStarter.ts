import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { z } from 'zod';
import { logger } from '#platform/logger.ts';
import { workflowEngine } from '#platform/workflow.ts';
import { offRampExecutionName, offRampWorkflow } from '#operations/offRamp/intake.ts';
import { outboxEventSchema } from '#store/outbox.ts';

/**
 * Event rule target for `offramp.accepted`: starts the off-ramp's workflow. POST /treasury/offramp
 * starts it right after creating the off-ramp; this is the safety net for a request that died
 * between its commit and that start. The execution name is derived from the off-ramp, so a second
 * start is refused by the engine and nothing runs twice.
 */
const acceptedEventSchema = z.object({
  detail: outboxEventSchema.extend({ data: z.object({ offRampId: z.string().min(1) }) }),
});

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  const engine = await workflowEngine();
  for (const message of event.Records) {
    try {
      const { detail } = acceptedEventSchema.parse(JSON.parse(message.body));
      const input = { organizationId: detail.organizationId, offRampId: detail.data.offRampId };
      await engine.start(offRampWorkflow, offRampExecutionName(input.organizationId, input.offRampId), input);
    } catch (error) {
      logger.error('off-ramp workflow not started from its accepted event', { messageId: message.messageId, error: error as Error });
      batchItemFailures.push({ itemIdentifier: message.messageId });
    }
  }
  return { batchItemFailures };
}
