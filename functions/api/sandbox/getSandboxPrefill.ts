import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { sandboxPrefill } from '#operations/sandbox/prefill.ts';
import { offRampOutcomeBands, onRampOutcomeBands, withdrawalOutcomeBands } from '#contract/outcomeBands.ts';
import { getSandboxPrefill } from '#contract/routes.ts';

/** GET /treasury/sandbox-prefill: ready-to-send inputs and the outcome bands (sandbox only). */
export const handler = endpoint(getSandboxPrefill, async () => {
  return ok(
    sandboxPrefill({
      offrampBeneficiaries: [...sampleOffRampBeneficiaries],
      bands: { onramp: onRampOutcomeBands, withdrawal: withdrawalOutcomeBands, offramp: offRampOutcomeBands },
    }),
  );
});
