import { endpoint, ok } from '#platform/endpoint.ts';
import { requireSandbox } from '#platform/sandbox.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { sandboxPrefill } from '#operations/sandbox/prefill.ts';
import { withdrawalOutcomeBands } from '#providers/chain.ts';
import { offRampOutcomeBands } from '#providers/offRamp.ts';
import { onRampOutcomeBands } from '#providers/onRamp.ts';
import { payoutProvider } from '#providers/payout.ts';
import { getSandboxPrefill } from '#contract/routes.ts';

/** GET /treasury/sandbox-prefill: ready-to-send inputs and the outcome bands (sandbox only). */
export const handler = endpoint(getSandboxPrefill, async () => {
  requireSandbox();
  // The inputs are the simulators' own: where payouts run against a real adapter (or none), they promise nothing (501).
  payoutProvider();
  return ok(
    sandboxPrefill({
      offrampBeneficiaries: [...sampleOffRampBeneficiaries],
      bands: { onramp: onRampOutcomeBands, withdrawal: withdrawalOutcomeBands, offramp: offRampOutcomeBands },
    }),
  );
});
