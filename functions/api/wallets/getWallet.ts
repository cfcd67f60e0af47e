import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { findWallet, walletView } from '#store/wallets.ts';
import { getWallet } from '#contract/routes.ts';

/**
 * GET /wallets/:walletId, by the service's id or the provider's `externalId`. Another
 * organization's wallet is 404 like one that does not exist: both reads are scoped by the caller's
 * organization. 501 where no custody provider is wired, as GET /wallets.
 */
export const handler = endpoint(getWallet, async ({ caller, params }) => {
  const wallet = await findWallet(caller.organizationId, params.walletId);
  if (!wallet) throw notFound('wallet');
  return ok(walletView(wallet));
});
