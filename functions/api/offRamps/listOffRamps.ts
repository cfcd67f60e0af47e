import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listOffRamps } from '#contract/routes.ts';
import { offRampListRow, type OffRampRecord } from '#operations/offRamp/view.ts';
import { listOperations } from '#store/operations.ts';

export const handler = endpoint(listOffRamps, async ({ caller, query }) => {
  const { rows, nextCursor } = await listOperations<OffRampRecord>(caller.organizationId, 'offramp', { limit: query.limit, cursor: query.cursor });
  return ok({ offramps: rows.map(offRampListRow), count: rows.length, nextCursor, hasMore: nextCursor !== null });
});
