import { z } from 'zod';
import { workflowWait } from '#platform/workflow.ts';
import { parkPayment, pollPayout, reconcilePayment, refundPayment, submitPayout, type PaymentOutcome } from '#operations/payment/progress.ts';

/**
 * payment / every Task state: one Lambda for the payment's steps (they share every import, so
 * one warm function serves the whole workflow); the state names its step in the payload.
 * The steps themselves, and why each is safe to run twice, are in functions/operations/payment/progress.ts.
 */
const inputSchema = z.object({
  step: z.enum(['submit', 'poll', 'refund', 'reconcile', 'park']),
  organizationId: z.string().min(1),
  transactionId: z.string().min(1),
  error: z.unknown().optional(),
});

const steps = { submit: submitPayout, poll: pollPayout, refund: refundPayment, reconcile: reconcilePayment, park: parkPayment };

export async function handler(event: unknown): Promise<{ outcome: PaymentOutcome; waitSeconds: number }> {
  const { step, ...ref } = inputSchema.parse(event);
  const { outcome, waitSeconds = 10 } = await steps[step](ref);
  return { outcome, waitSeconds: workflowWait(waitSeconds) };
}
