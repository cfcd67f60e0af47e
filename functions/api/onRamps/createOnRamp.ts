import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createOnRamp } from '#contract/routes.ts';
import { openWireOnRamp } from '#operations/onRamp/intake.ts';

export const handler = endpoint(createOnRamp, async ({ caller, body }) => {
  // First: with no on-ramp provider on this environment the feature answers 501 (docs/decisions/054).
  return ok(await openWireOnRamp(caller.organizationId, body), 202);
});
