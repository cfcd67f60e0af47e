import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { reportedBalances } from '#operations/wallet/custody.ts';
import { getWalletBalances } from '#contract/routes.ts';

/** GET /wallets/:walletId/balances: the custody provider's report of what the wallet holds (functions/operations/wallet/custody.ts). */
export const handler = endpoint(getWalletBalances, async ({ caller, params }) => {
  return ok(await reportedBalances(caller.organizationId, params.walletId));
});
