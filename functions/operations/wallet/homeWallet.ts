import { ApiError } from '#platform/errors.ts';
import { listWallets, type WalletRecord } from '#store/wallets.ts';

/**
 * The home wallet every payment is funded from. Read from the wallet items themselves (one
 * Query of the organization's wallets, store/wallets.ts) rather than trusted from a pointer, so that a data fault
 * leaving none or two flagged home is refused (`no_home_wallet`, `ambiguous_home_wallet`)
 * instead of funding from a guess.
 */
export async function homeWalletOf(organizationId: string, integratorWalletId?: string): Promise<WalletRecord> {
  const homes = (await listWallets(organizationId)).filter((wallet) => wallet.home);
  if (homes.length === 0) throw new ApiError('no_home_wallet', 'This organization has no home wallet to fund from.');
  if (homes.length > 1) {
    throw new ApiError('ambiguous_home_wallet', 'More than one wallet is marked home; nothing was moved. Contact support.');
  }
  const home = homes[0]!;
  if (integratorWalletId !== undefined && integratorWalletId !== home.id && integratorWalletId !== home.externalId) {
    throw new ApiError('not_home_wallet', 'integratorWalletId must be the home wallet (or be omitted): funding is always from it.');
  }
  return home;
}
