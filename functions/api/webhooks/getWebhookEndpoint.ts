import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getWebhookEndpoint } from '#contract/routes.ts';
import { endpointView, getEndpoint } from '#store/webhooks.ts';

export const handler = endpoint(getWebhookEndpoint, async ({ caller }) => {
  const registered = await getEndpoint(caller.organizationId);
  if (!registered) throw notFound('webhook endpoint');
  return ok(endpointView(registered));
});
