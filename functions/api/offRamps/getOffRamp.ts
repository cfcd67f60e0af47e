import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getOffRamp } from '#contract/routes.ts';
import { offRampOf } from '#operations/offRamp/view.ts';

export const handler = endpoint(getOffRamp, async ({ caller, params }) => {
  const offRamp = await offRampOf(caller.organizationId, params.offRampId);
  if (!offRamp) throw notFound('off-ramp');
  return ok(offRamp);
});
