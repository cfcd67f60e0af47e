import { ApiError } from '#platform/errors.ts';
import { logger } from '#platform/logger.ts';
import { providerRead } from '#platform/providerRead.ts';
import { cryptoDepositQuoteSize, depositNetworksOf } from '#domain/cryptoDeposit.ts';
import { money } from '#domain/money.ts';
import { isAddressOn } from '#domain/networks.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { custodyProvider } from '#providers/custody.ts';
import { custodyWalletOf } from '#operations/wallet/custody.ts';
import type { CryptoDepositAddresses } from '#schemas/deposits.ts';

const currency = 'USDC';

/**
 * Where an organization's USDC can be sent on chain (GET /treasury/crypto-deposit). The home
 * network, where a deposit is credited as is, and every network a crossing home is priced for, with
 * that crossing's fee (functions/domain/cryptoDeposit.ts). EVM networks share the home wallet's
 * address; Solana and Tron each have their own, from the custody provider. Every address is checked
 * against its network's format before it is shown: a wrong address loses the money sent to it
 * (docs/decisions/053).
 */
export async function cryptoDepositAddresses(organizationId: string): Promise<CryptoDepositAddresses> {
  const home = await homeWalletOf(organizationId);
  if (home.status !== 'active' || !home.address || !home.chain || !home.externalId) {
    throw new ApiError(
      'no_home_wallet',
      home.status === 'provisioning'
        ? 'The home wallet is still being opened and cannot receive yet; retry in a few seconds.'
        : 'The home wallet is not active and cannot receive deposits.',
    );
  }
  const planned = depositNetworksOf(home.chain);
  if (!planned) throw new Error(`home wallet ${home.id} is on ${home.chain}, a network of unknown address format`);

  const custody = custodyProvider();
  const wallet = custodyWalletOf(home, home.externalId);
  // A partial list would read as "not supported"; a provider that does not answer is "retry" (503).
  const depositAddress = (network: string) => providerRead(`${network} deposit address`, () => custody.depositAddress(wallet, network));
  const networks = await Promise.all(
    planned.map(async (entry) => {
      const address = entry.sharesHomeAddress ? home.address! : await depositAddress(entry.network);
      if (!isAddressOn(entry.network, address)) {
        logger.error('custody answered a malformed deposit address', { network: entry.network, walletId: home.id });
        throw new Error(`deposit address for ${entry.network} is not a well-formed ${entry.format} address`);
      }
      return { network: entry.network, address, home: entry.home, fee: money(entry.fee, currency) };
    }),
  );
  const addresses = new Set(networks.map((network) => network.address));
  return {
    currency,
    ...(addresses.size === 1 ? { address: networks[0]!.address } : {}),
    networks,
    quotedAt: money(cryptoDepositQuoteSize, currency),
  };
}
