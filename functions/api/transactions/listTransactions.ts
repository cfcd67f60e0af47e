import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listTransactions } from '#contract/routes.ts';
import { paymentPage } from '#operations/payment/view.ts';

export const handler = endpoint(listTransactions, async ({ caller, query }) => {
  const { rows, nextCursor } = await paymentPage(caller.organizationId, { limit: query.limit, cursor: query.cursor });
  return ok({ transactions: rows, count: rows.length, nextCursor, hasMore: nextCursor !== null });
});
