import * as z from 'zod/mini';
import { openWallet } from '#operations/wallet/provisioning.ts';
import { workflowWait } from '#platform/workflow.ts';

/** walletProvisioning / CreateWallet (functions/operations/wallet/provisioning.ts). */
const inputSchema = z.object({
  organizationId: z.string().check(z.minLength(1)),
  walletId: z.string().check(z.minLength(1)),
  /** How long the workflow waits before activating; the starter's value, capped locally (workflowWait). */
  activationWaitSeconds: z._default(z.number(), 1),
});

export async function handler(event: unknown) {
  const { organizationId, walletId, activationWaitSeconds } = inputSchema.parse(event);
  return { ...(await openWallet(organizationId, walletId)), activationWaitSeconds: workflowWait(activationWaitSeconds) };
}
