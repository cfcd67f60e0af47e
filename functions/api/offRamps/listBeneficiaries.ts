import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listBeneficiaries } from '#contract/routes.ts';
import { beneficiaryView } from '#operations/offRamp/beneficiaries.ts';
import { listOffRampBeneficiaries } from '#store/offRampBeneficiaries.ts';

export const handler = endpoint(listBeneficiaries, async ({ caller }) => {
  const beneficiaries = (await listOffRampBeneficiaries(caller.organizationId)).map(beneficiaryView);
  return ok({ beneficiaries, count: beneficiaries.length });
});
