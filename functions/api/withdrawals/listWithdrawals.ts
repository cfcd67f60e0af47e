import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listWithdrawals } from '#contract/routes.ts';
import { withdrawalPage } from '#operations/withdrawal/view.ts';

export const handler = endpoint(listWithdrawals, async ({ caller, query }) => {
  const { rows: withdrawals, nextCursor } = await withdrawalPage(caller.organizationId, { limit: query.limit, cursor: query.cursor });
  return ok({ withdrawals, count: withdrawals.length, nextCursor, hasMore: nextCursor !== null });
});
