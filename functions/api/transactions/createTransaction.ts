import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createTransaction } from '#contract/routes.ts';
import { acceptPayment } from '#operations/payment/intake.ts';

export const handler = endpoint(createTransaction, async ({ caller, body }) => {
  const accepted = await acceptPayment(caller.organizationId, body);
  return ok(accepted, 202);
});
