import { endpoint, ok } from '#platform/endpoint.ts';
import { createWithdrawal } from '#wiring/routes.ts';
import { acceptWithdrawal } from '#core/withdrawalIntake.ts';

export const handler = endpoint(createWithdrawal, async ({ caller, body }) => {
  const accepted = await acceptWithdrawal(caller.organizationId, body);
  return ok(accepted, 202);
});
