import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { issuerAccounts } from '#operations/issuer/catalogue.ts';
import { listIssuerAccounts } from '#contract/routes.ts';
import type { WalletAccountList } from '#schemas/wallets.ts';

/** GET /issuers/accounts: the organization's accounts at issuers, whole with `count`, as the issuer port reports them. */
export const handler = endpoint(listIssuerAccounts, async ({ caller }) => {
  const accounts = await issuerAccounts(caller.organizationId);
  const body: WalletAccountList = { accounts, count: accounts.length };
  return ok(body);
});
