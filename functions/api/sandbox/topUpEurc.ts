import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError, notFound, validationError } from '#platform/errors.ts';
import { parseDecimal, scaleOf } from '#domain/money.ts';
import { custodyProvider, ProviderNotConfigured } from '#providers/custody.ts';
import { findWallet } from '#store/wallets.ts';
import { topUpEurc } from '#contract/routes.ts';
import type { EurcTopUp } from '#schemas/sandbox.ts';

const asset = 'EURC';
/** One top-up gives at most a million EURC: enough for any test, and far from DynamoDB's 38 digits however often it is called. */
const largestTopUp = parseDecimal('1000000', scaleOf(asset)!);

/**
 * POST /wallets/:walletId/topup-eurc (sandbox only): the custodian's sandbox faucet credits EURC
 * to the wallet one-for-one, as if euros had been minted there. It touches the custodian's book,
 * never the ledger (which keeps USDC), and has no idempotency key: each call gives again
 * (docs/decisions/062). 409 `conflict` while the wallet cannot receive (not active).
 */
export const handler = endpoint(topUpEurc, async ({ caller, body, params }) => {
  const custody = custodyProvider();
  const amount = parseDecimal(body.amount, scaleOf(asset)!);
  if (amount <= 0n || amount > largestTopUp) {
    throw validationError([{ path: ['amount'], message: 'must be more than 0 and at most 1000000' }], 'The top-up amount is out of range.');
  }
  const wallet = await findWallet(caller.organizationId, params.walletId);
  if (!wallet) throw notFound('wallet');
  if (wallet.status !== 'active' || wallet.externalId === null) {
    throw new ApiError('conflict', `The wallet is ${wallet.status} and cannot receive a top-up; retry once it is active.`);
  }
  if (wallet.provider !== custody.name || !custody.sandboxTopUp) {
    throw new ProviderNotConfigured(`The custody provider of this wallet (${wallet.provider}) has no sandbox faucet wired here.`);
  }
  const position = await custody.sandboxTopUp(
    { organizationId: caller.organizationId, walletId: wallet.id, externalId: wallet.externalId, chain: wallet.chain, currencies: wallet.currencies, home: wallet.home },
    asset,
    amount,
  );
  const response: EurcTopUp = { walletId: wallet.id, balance: { asset, amount: position.amount.toString(), scale: 6 } };
  return ok(response);
});
