import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError, notFound } from '#platform/errors.ts';
import { providerRead } from '#platform/providerRead.ts';
import { custodyProvider, ProviderNotConfigured } from '#providers/custody.ts';
import { findWallet } from '#store/wallets.ts';
import { getWalletBalances } from '#contract/routes.ts';
import type { WalletBalances } from '#schemas/wallets.ts';

/**
 * GET /wallets/:walletId/balances: the custody provider's report of what the wallet holds, as
 * reported (not the ledger's view, which GET /balance gives). 501 where no custody provider is
 * wired, which is different from an empty wallet; 503 while the wallet is still being opened
 * there, since the provider has nothing to report on yet (docs/decisions/052).
 */
export const handler = endpoint(getWalletBalances, async ({ caller, params }) => {
  const custody = custodyProvider();
  const wallet = await findWallet(caller.organizationId, params.walletId);
  if (!wallet) throw notFound('wallet');
  if (wallet.status === 'provisioning' || wallet.externalId === null) {
    throw new ApiError('unavailable', 'The wallet is still being opened at the custody provider and has no balances to report yet; retry in a few seconds.');
  }
  if (wallet.provider !== custody.name) {
    throw new ProviderNotConfigured(`The wallet is held at ${wallet.provider}, which is not wired on this environment.`);
  }
  const reported = await providerRead('wallet balances', () =>
    custody.balances({
      organizationId: caller.organizationId,
      walletId: wallet.id,
      externalId: wallet.externalId!,
      chain: wallet.chain,
      currencies: wallet.currencies,
      home: wallet.home,
    }),
  );
  const body: WalletBalances = {
    walletId: wallet.id,
    balances: reported.map(({ asset, amount, scale, chain }) => ({ asset, amount: amount.toString(), scale, chain })),
  };
  return ok(body);
});
