import { endpoint, ok } from '#platform/endpoint.ts';
import { notFound } from '#platform/errors.ts';
import { getWebhookEndpoint } from '#contract/routes.ts';
import { endpointView, getEndpoint } from '#store/webhooks.ts';

export const handler = endpoint(getWebhookEndpoint, async ({ caller }) => {
  const registered = await getEndpoint(caller.organizationId);
  if (!registered) throw notFound('webhook endpoint');
  return ok(endpointView(registered));
});
