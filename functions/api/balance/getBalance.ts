import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { getBalance } from '#contract/routes.ts';
import { balanceOf } from '#operations/balance/balance.ts';

/** GET /balance: the organization's USDC as the ledger holds it (functions/operations/balance/balance.ts). */
export const handler = endpoint(getBalance, async ({ caller }) => ok(await balanceOf(caller.organizationId)));
