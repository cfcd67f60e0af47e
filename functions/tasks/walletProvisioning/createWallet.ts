import { z } from 'zod';
import { workflowWait } from '#platform/workflow.ts';
import { custodyProvider, type OpenedWallet } from '#providers/custody.ts';
import { getWallet, WalletNotFound, WalletNotProvisionable } from '#store/wallets.ts';

/**
 * walletProvisioning / CreateWallet: opens the wallet at the custody provider. Writes nothing:
 * ActivateWallet records the result together with its event. Idempotent: once the wallet is
 * active it answers the stored details without calling the provider again; before that the
 * provider itself is idempotent on the wallet id.
 */
const inputSchema = z.object({
  organizationId: z.string().min(1),
  walletId: z.string().min(1),
  /** How long the workflow waits before activating; the starter's value, capped locally (workflowWait). */
  activationWaitSeconds: z.number().default(1),
});

export async function handler(event: unknown): Promise<OpenedWallet & { activationWaitSeconds: number }> {
  const { organizationId, walletId, activationWaitSeconds } = inputSchema.parse(event);
  const wait = workflowWait(activationWaitSeconds);
  const wallet = await getWallet(organizationId, walletId);
  if (!wallet) throw new WalletNotFound(organizationId, walletId);
  if (wallet.status === 'active' && wallet.externalId && wallet.address && wallet.chain) {
    return { externalId: wallet.externalId, address: wallet.address, chain: wallet.chain, activationWaitSeconds: wait };
  }
  if (wallet.status !== 'provisioning') throw new WalletNotProvisionable(walletId, wallet.status);
  return { ...(await custodyProvider().openWallet({ organizationId, walletId, label: wallet.label })), activationWaitSeconds: wait };
}
