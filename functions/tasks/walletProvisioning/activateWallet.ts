import * as z from 'zod';
import { activateWallet } from '#operations/wallet/provisioning.ts';

/** walletProvisioning / ActivateWallet (functions/operations/wallet/provisioning.ts). */
const inputSchema = z.object({
  organizationId: z.string().min(1),
  walletId: z.string().min(1),
  custody: z.object({
    externalId: z.string().min(1),
    address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
    chain: z.string().min(1),
  }),
});

export async function handler(event: unknown) {
  const { organizationId, walletId, custody } = inputSchema.parse(event);
  return activateWallet(organizationId, walletId, custody);
}
