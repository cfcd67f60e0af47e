import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { sandboxPrefill } from '#operations/sandbox/prefill.ts';
import { withdrawalOutcomeBands } from '#providers/chain.ts';
import { offRampOutcomeBands } from '#providers/offRamp.ts';
import { onRampOutcomeBands } from '#providers/onRamp.ts';
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
