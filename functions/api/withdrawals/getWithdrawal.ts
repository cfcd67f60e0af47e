import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getWithdrawal } from '#contract/routes.ts';
import { withdrawalStatusView, type WithdrawalRecord } from '#operations/withdrawal/view.ts';
import { getOperation } from '#store/operations.ts';

export const handler = endpoint(getWithdrawal, async ({ caller, params }) => {
  const record = await getOperation<WithdrawalRecord>(caller.organizationId, 'withdrawal', params.withdrawalId);
  if (!record) throw notFound('withdrawal');
  return ok(withdrawalStatusView(record));
});
