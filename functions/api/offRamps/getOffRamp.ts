import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { getOffRamp } from '#contract/routes.ts';
import { offRampStatusView, type OffRampRecord } from '#operations/offRamp/view.ts';
import { getOperation } from '#store/operations.ts';

export const handler = endpoint(getOffRamp, async ({ caller, params }) => {
  const record = await getOperation<OffRampRecord>(caller.organizationId, 'offramp', params.offRampId);
  if (!record) throw notFound('off-ramp');
  return ok(offRampStatusView(record));
});
