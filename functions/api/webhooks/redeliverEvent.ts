import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { redeliverEvent } from '#contract/routes.ts';
import { redeliver } from '#operations/webhook/delivery.ts';

export const handler = endpoint(redeliverEvent, async ({ caller, params }) => {
  const started = await redeliver(caller.organizationId, params.eventId);
  if (!started) throw notFound('event');
  return ok(started, 202);
});
