import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { issuerCatalogue } from '#operations/issuer/catalogue.ts';
import { listIssuers } from '#contract/routes.ts';
import type { IssuerList } from '#schemas/wallets.ts';

/** GET /issuers: the issuer catalogue from the issuer port; 501 where no issuer provider is wired. */
export const handler = endpoint(listIssuers, async () => {
  const issuers = await issuerCatalogue();
  const body: IssuerList = { issuers, count: issuers.length };
  return ok(body);
});
