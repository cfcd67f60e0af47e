import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { providerRead } from '#platform/providerRead.ts';
import { issuerProvider } from '#providers/issuers.ts';
import { listIssuers } from '#contract/routes.ts';
import type { IssuerList } from '#schemas/wallets.ts';

/** GET /issuers: the issuer catalogue from the issuer port; 501 where no issuer provider is wired. */
export const handler = endpoint(listIssuers, async () => {
  const provider = issuerProvider();
  const issuers = await providerRead('issuer catalogue', () => provider.catalogue());
  const body: IssuerList = { issuers, count: issuers.length };
  return ok(body);
});
