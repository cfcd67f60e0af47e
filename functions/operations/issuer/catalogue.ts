import { providerRead } from '#platform/providerRead.ts';
import { issuerProvider } from '#providers/issuers.ts';

/**
 * What the issuer port reports, read as it is (GET /issuers, GET /issuers/accounts): 501 where no
 * issuer provider is wired. In `simulated` an organization holds no account, which is the true
 * answer there (docs/decisions/052).
 */
export function issuerCatalogue() {
  const provider = issuerProvider();
  return providerRead('issuer catalogue', () => provider.catalogue());
}

export function issuerAccounts(organizationId: string) {
  const provider = issuerProvider();
  return providerRead('issuer accounts', () => provider.accounts(organizationId));
}
