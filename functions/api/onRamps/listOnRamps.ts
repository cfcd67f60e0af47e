import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listOnRamps } from '#contract/routes.ts';
import { listOnRampPage } from '#operations/onRamp/intake.ts';

export const handler = endpoint(listOnRamps, async ({ caller, query }) => {
  // A list from an environment with no on-ramp provider would read as "none": 501 instead.
  const { rows, nextCursor } = await listOnRampPage(caller.organizationId, { limit: query.limit, cursor: query.cursor, origin: query.origin });
  return ok({ onramps: rows, count: rows.length, nextCursor, hasMore: nextCursor !== null });
});
