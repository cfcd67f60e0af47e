import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { deleteWebhookEndpoint } from '#contract/routes.ts';
import { deleteEndpoint } from '#store/webhooks.ts';

/** Delivery stops at once: every delivery in flight finds no endpoint at its next attempt and ends there. */
export const handler = endpoint(deleteWebhookEndpoint, async ({ caller }) => {
  const deleted = await deleteEndpoint(caller.organizationId);
  if (!deleted) throw notFound('webhook endpoint');
  return ok({ deleted: true, url: deleted.url, events: deleted.events, deletedAt: new Date().toISOString() });
});
