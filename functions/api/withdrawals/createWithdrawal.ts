import { endpoint, ok } from '#platform/endpoint.ts';
import { chainSender } from '#providers/chain.ts';
import { createWithdrawal } from '#contract/routes.ts';
import { acceptWithdrawal } from '#operations/withdrawal/intake.ts';

export const handler = endpoint(createWithdrawal, async ({ caller, body }) => {
  // First, so an environment with no custodian to send answers 501 (never an empty list or a price nothing can honour).
  chainSender();
  const accepted = await acceptWithdrawal(caller.organizationId, body);
  return ok(accepted, 202);
});
