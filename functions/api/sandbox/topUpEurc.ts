import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { topUpEurc as faucet } from '#operations/wallet/custody.ts';
import { topUpEurc } from '#contract/routes.ts';

/** POST /wallets/:walletId/topup-eurc (sandbox only): the custodian's sandbox faucet (functions/operations/wallet/custody.ts). */
export const handler = endpoint(topUpEurc, async ({ caller, body, params }) => {
  return ok(await faucet(caller.organizationId, params.walletId, body.amount));
});
