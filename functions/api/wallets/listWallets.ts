import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listWallets as readAll, walletView } from '#store/wallets.ts';
import { listWallets } from '#contract/routes.ts';
import type { WalletAccountList } from '#schemas/wallets.ts';

/**
 * GET /wallets: every wallet of the organization, without balances, whole with `count`. Wallets
 * are opened at the custody provider, so where none is wired (ProviderNotConfigured, answered 501)
 * there is no wallet feature to read, only a wallet that can never open (docs/decisions/052).
 */
export const handler = endpoint(listWallets, async ({ caller }) => {
  const accounts = (await readAll(caller.organizationId)).map(walletView);
  const body: WalletAccountList = { accounts, count: accounts.length };
  return ok(body);
});
