import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createWithdrawal } from '#contract/routes.ts';
import { acceptWithdrawal } from '#operations/withdrawal/intake.ts';

export const handler = endpoint(createWithdrawal, async ({ caller, body }) => {
  const accepted = await acceptWithdrawal(caller.organizationId, body);
  return ok(accepted, 202);
});
