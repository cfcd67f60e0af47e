import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { FxPairUnsupported } from '#providers/fx.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { getPixOnRampQuote } from '#contract/routes.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { fiatToUsdcRate, parseFiat, pixCurrency, pixQuote } from '#operations/onRamp/pricing.ts';
import { onRampProvider } from '#providers/onRamp.ts';

/** GET /treasury/onramp/pix/quote: what a code for this amount would deliver now, and whether one can be opened. */
export const handler = endpoint(getPixOnRampQuote, async ({ caller, query }) => {
  const provider = onRampProvider();
  const amount = parseFiat(query.amount, pixCurrency, ['amount']);
  const home = await homeWalletOf(caller.organizationId).then(
    (wallet) => (wallet.chain ? { chain: wallet.chain } : { unavailable: 'the home wallet is still being opened' }),
    (error: unknown) => {
      if (error instanceof ApiError) return { unavailable: 'there is no single home wallet to deliver the USDC to' };
      throw error;
    },
  );
  const priced = await fiatToUsdcRate(pixCurrency).catch((error: unknown) => {
    if (error instanceof ProviderUnavailable || error instanceof FxPairUnsupported) return { unavailable: 'the BRL price is momentarily unavailable' };
    throw error;
  });
  return ok(pixQuote({ amount, provider: provider.name, home, priced }));
});
