import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getEvent } from '#contract/routes.ts';
import { eventDetail, getEvent as readEvent } from '#store/webhooks.ts';

export const handler = endpoint(getEvent, async ({ caller, params }) => {
  const event = await readEvent(caller.organizationId, params.eventId);
  if (!event) throw notFound('event');
  return ok(eventDetail(event));
});
