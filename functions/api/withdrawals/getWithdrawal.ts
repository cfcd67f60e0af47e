import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getWithdrawal } from '#contract/routes.ts';
import { withdrawalOf } from '#operations/withdrawal/view.ts';

export const handler = endpoint(getWithdrawal, async ({ caller, params }) => {
  const withdrawal = await withdrawalOf(caller.organizationId, params.withdrawalId);
  if (!withdrawal) throw notFound('withdrawal');
  return ok(withdrawal);
});
