import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createBeneficiary } from '#contract/routes.ts';
import { registerOffRampBeneficiary } from '#operations/offRamp/beneficiaries.ts';

export const handler = endpoint(createBeneficiary, async ({ caller, body }) => {
  // Off-ramp endpoints answer 501 where off-ramps are not enabled (the contract): no provider, no payees.
  return ok(await registerOffRampBeneficiary(caller.organizationId, body), 201);
});
