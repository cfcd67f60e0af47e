import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listWithdrawals } from '#contract/routes.ts';
import { withdrawalListItem, type WithdrawalRecord } from '#operations/withdrawal/view.ts';
import { listOperations } from '#store/operations.ts';

export const handler = endpoint(listWithdrawals, async ({ caller, query }) => {
  const { rows, nextCursor } = await listOperations<WithdrawalRecord>(caller.organizationId, 'withdrawal', { limit: query.limit, cursor: query.cursor });
  const withdrawals = rows.map(withdrawalListItem);
  return ok({ withdrawals, count: withdrawals.length, nextCursor, hasMore: nextCursor !== null });
});
