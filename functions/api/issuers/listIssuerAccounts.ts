import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { providerRead } from '#platform/providerRead.ts';
import { issuerProvider } from '#providers/issuers.ts';
import { listIssuerAccounts } from '#contract/routes.ts';
import type { WalletAccountList } from '#schemas/wallets.ts';

/**
 * GET /issuers/accounts: the organization's accounts at issuers, whole with `count`, as the issuer
 * port reports them; 501 where no issuer provider is wired. In `simulated` an organization holds
 * none, which is the true answer there (docs/decisions/052).
 */
export const handler = endpoint(listIssuerAccounts, async ({ caller }) => {
  const provider = issuerProvider();
  const accounts = await providerRead('issuer accounts', () => provider.accounts(caller.organizationId));
  const body: WalletAccountList = { accounts, count: accounts.length };
  return ok(body);
});
