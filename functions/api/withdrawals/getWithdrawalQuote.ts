import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { getWithdrawalQuote } from '#contract/routes.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { money } from '#domain/money.ts';
import { priceWithdrawal, withdrawalAmountOf } from '#operations/withdrawal/pricing.ts';
import { withdrawalCurrency } from '#operations/withdrawal/view.ts';

/** GET /treasury/withdrawals/quote: what a withdrawal of `amount` on `chain` costs now and what arrives. */
export const handler = endpoint(getWithdrawalQuote, async ({ caller, query }) => {
  const amount = withdrawalAmountOf(query.amount, withdrawalCurrency, ['amount']);
  // The networks depend on the home wallet's: without one open there is nothing to price from.
  const home = await homeWalletOf(caller.organizationId);
  if (home.status !== 'active' || !home.chain) throw new ApiError('no_home_wallet', 'The home wallet is not open yet; retry in a few seconds.');
  const price = await priceWithdrawal({ homeNetwork: home.chain, network: query.chain, amount, amountPath: ['amount'] });
  return ok({
    amount: money(price.amount, withdrawalCurrency),
    network: price.network,
    fee: money(price.fee, withdrawalCurrency),
    net: money(price.net, withdrawalCurrency),
  });
});
