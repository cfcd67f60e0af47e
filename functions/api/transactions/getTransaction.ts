import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getTransaction } from '#contract/routes.ts';
import { paymentOf } from '#operations/payment/view.ts';

export const handler = endpoint(getTransaction, async ({ caller, params }) => {
  const transaction = await paymentOf(caller.organizationId, params.transactionId);
  if (!transaction) throw notFound('transaction');
  return ok(transaction);
});
