import { z } from 'zod';
import { workflowWait } from '#platform/workflow.ts';
import { creditDepositHome, moveDepositHome, parkChainDeposit, type ChainDepositOutcome } from '#operations/chainDeposit/progress.ts';

/**
 * chainDeposit / every Task state: one Lambda for the steps of moving an on-chain deposit home.
 * The steps, and why each is safe to run twice, are in functions/operations/chainDeposit/progress.ts.
 */
const inputSchema = z.object({
  step: z.enum(['move', 'credit', 'park']),
  organizationId: z.string().min(1),
  depositId: z.string().min(1),
  error: z.unknown().optional(),
});

const steps = { move: moveDepositHome, credit: creditDepositHome, park: parkChainDeposit };

export async function handler(event: unknown): Promise<{ outcome: ChainDepositOutcome; waitSeconds: number }> {
  const { step, ...ref } = inputSchema.parse(event);
  const result: { outcome: ChainDepositOutcome; waitSeconds?: number } = await steps[step](ref);
  return { outcome: result.outcome, waitSeconds: workflowWait(result.waitSeconds ?? 5) };
}
