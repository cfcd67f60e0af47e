import { z } from 'zod';
import { workflowWait } from '#platform/workflow.ts';
import { parkWithdrawal, pollWithdrawal, pullFunds, returnWithdrawal, sendWithdrawal, type WithdrawalOutcome } from '#operations/withdrawal/progress.ts';

/**
 * withdrawal / every Task state: one Lambda for the withdrawal's steps (they share every import,
 * so one warm function serves the whole workflow); the state names its step in the payload.
 * The steps, and why each is safe to run twice, are in functions/operations/withdrawal/progress.ts.
 */
const inputSchema = z.object({
  step: z.enum(['pull', 'send', 'poll', 'return', 'park']),
  organizationId: z.string().min(1),
  withdrawalId: z.string().min(1),
  error: z.unknown().optional(),
});

const steps = { pull: pullFunds, send: sendWithdrawal, poll: pollWithdrawal, return: returnWithdrawal, park: parkWithdrawal };

export async function handler(event: unknown): Promise<{ outcome: WithdrawalOutcome; waitSeconds: number }> {
  const { step, ...ref } = inputSchema.parse(event);
  const { outcome, waitSeconds = 10 } = await steps[step](ref);
  return { outcome, waitSeconds: workflowWait(waitSeconds) };
}
