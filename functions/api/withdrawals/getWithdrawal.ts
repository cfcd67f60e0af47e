import { endpoint, ok } from '#platform/endpoint.ts';
import { chainSender } from '#providers/chain.ts';
import { notFound } from '#platform/errors.ts';
import { getWithdrawal } from '#contract/routes.ts';
import { withdrawalStatusView, type WithdrawalRecord } from '#operations/withdrawal/view.ts';
import { getOperation } from '#store/operations.ts';

export const handler = endpoint(getWithdrawal, async ({ caller, params }) => {
  // First, so an environment with no custodian to send answers 501 (never an empty list or a price nothing can honour).
  chainSender();
  const record = await getOperation<WithdrawalRecord>(caller.organizationId, 'withdrawal', params.withdrawalId);
  if (!record) throw notFound('withdrawal');
  return ok(withdrawalStatusView(record));
});
