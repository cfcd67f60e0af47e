import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listEvents } from '#contract/routes.ts';
import { listEvents as readPage } from '#store/webhooks.ts';

export const handler = endpoint(listEvents, async ({ caller, query }) => {
  const { rows, nextCursor } = await readPage(caller.organizationId, query);
  return ok({ events: rows, count: rows.length, nextCursor, hasMore: nextCursor !== null });
});
