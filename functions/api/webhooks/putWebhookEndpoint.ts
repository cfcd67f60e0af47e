import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { putWebhookEndpoint } from '#contract/routes.ts';
import { registerEndpoint } from '#operations/webhook/endpoint.ts';

export const handler = endpoint(putWebhookEndpoint, async ({ caller, body }) => {
  return ok(await registerEndpoint(caller.organizationId, body));
});
