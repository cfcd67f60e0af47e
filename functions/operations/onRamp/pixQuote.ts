import { ApiError } from '#platform/errors.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { FxPairUnsupported } from '#providers/fx.ts';
import { onRampProvider } from '#providers/onRamp.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { fiatToUsdcRate, parseFiat, pixCurrency, pixQuote } from '#operations/onRamp/pricing.ts';

/**
 * GET /treasury/onramp/pix/quote: what a code for this amount would deliver now, and whether one can
 * be opened: a missing home wallet or price says why not instead of failing the quote.
 */
export async function quotePix(organizationId: string, decimal: string) {
  const provider = onRampProvider();
  const amount = parseFiat(decimal, pixCurrency, ['amount']);
  const home = await homeWalletOf(organizationId).then(
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
  return pixQuote({ amount, provider: provider.name, home, priced });
}
