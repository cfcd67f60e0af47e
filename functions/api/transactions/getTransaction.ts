import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getTransaction } from '#contract/routes.ts';
import { getTransaction as readTransaction, statusView } from '#store/transactions.ts';

export const handler = endpoint(getTransaction, async ({ caller, params }) => {
  const transaction = await readTransaction(caller.organizationId, params.transactionId);
  if (!transaction) throw notFound('transaction');
  return ok(statusView(transaction));
});
