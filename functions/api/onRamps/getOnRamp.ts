import { endpoint, ok } from '#platform/endpoint.ts';
import { onRampProvider } from '#providers/onRamp.ts';
import { notFound } from '#platform/errors.ts';
import { getOnRamp } from '#contract/routes.ts';
import { readOnRamp, statusView } from '#operations/onRamp/intake.ts';

export const handler = endpoint(getOnRamp, async ({ caller, params }) => {
  onRampProvider();
  const record = await readOnRamp(caller.organizationId, params.onRampId);
  if (!record) throw notFound('on-ramp');
  return ok(statusView(record));
});
