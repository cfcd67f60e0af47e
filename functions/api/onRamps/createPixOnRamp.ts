import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createPixOnRamp } from '#contract/routes.ts';
import { openPixOnRamp } from '#operations/onRamp/intake.ts';

export const handler = endpoint(createPixOnRamp, async ({ caller, body }) => {
  // First: with no on-ramp provider on this environment the feature answers 501 (docs/decisions/054).
  return ok(await openPixOnRamp(caller.organizationId, body), 202);
});
