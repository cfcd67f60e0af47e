import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { simulateOnRampPayment } from '#contract/routes.ts';
import { payAsSimulatedPayer } from '#operations/onRamp/intake.ts';

export const handler = endpoint(simulateOnRampPayment, async ({ caller, params }) => {
  return ok(await payAsSimulatedPayer(caller.organizationId, params.onRampId), 202);
});
