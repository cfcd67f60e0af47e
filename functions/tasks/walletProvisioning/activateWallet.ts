import * as z from 'zod/mini';
import { activateWallet } from '#operations/wallet/provisioning.ts';

/** walletProvisioning / ActivateWallet (functions/operations/wallet/provisioning.ts). */
const inputSchema = z.object({
  organizationId: z.string().check(z.minLength(1)),
  walletId: z.string().check(z.minLength(1)),
  custody: z.object({
    externalId: z.string().check(z.minLength(1)),
    address: z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/)),
    chain: z.string().check(z.minLength(1)),
  }),
});

export async function handler(event: unknown) {
  const { organizationId, walletId, custody } = inputSchema.parse(event);
  return activateWallet(organizationId, walletId, custody);
}
