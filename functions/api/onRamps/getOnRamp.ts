import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getOnRamp } from '#contract/routes.ts';
import { statusView } from '#operations/onRamp/view.ts';
import { readOnRamp } from '#operations/onRamp/intake.ts';

export const handler = endpoint(getOnRamp, async ({ caller, params }) => {
  const record = await readOnRamp(caller.organizationId, params.onRampId);
  if (!record) throw notFound('on-ramp');
  return ok(statusView(record));
});
