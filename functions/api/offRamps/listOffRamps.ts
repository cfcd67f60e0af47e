import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listOffRamps } from '#contract/routes.ts';
import { offRampPage } from '#operations/offRamp/view.ts';

export const handler = endpoint(listOffRamps, async ({ caller, query }) => {
  const { rows: offramps, nextCursor } = await offRampPage(caller.organizationId, { limit: query.limit, cursor: query.cursor });
  return ok({ offramps, count: offramps.length, nextCursor, hasMore: nextCursor !== null });
});
