import type { OperationTransition } from '#store/operations.ts';
import { InvalidResolution } from '#operations/kit/errors.ts';
import { resolveParked, type OperatorResolution, type ResolutionPlan } from '#operations/kit/resolution.ts';
import type { OnRampRecord } from './view.ts';
import { deliveredCredit, deliveredEvent, fiatText, onRampProgress, usdcText, type OnRampRef } from './progress.ts';

export const txHashPattern = /^0x[0-9a-fA-F]{64}$/;

export const onRampResolutions = ['delivered', 'not-delivered'] as const;
export type OnRampResolution = { as: 'delivered'; txHash: string; note: string } | { as: 'not-delivered'; note: string };

/**
 * An on-ramp parked IN_DOUBT, after operations reconciled with the issuer, through the kit's one
 * resolution: `delivered` (the USDC reached the home wallet: DELIVERED with the same credit and
 * onramp.delivered as the workflow's confirmation) or `not-delivered` (nothing was sent: FAILED,
 * nothing credited; the fiat stays in the house account for reconciliation).
 */
export async function resolveOnRamp(ref: OnRampRef, resolution: OnRampResolution): Promise<OperatorResolution> {
  if (resolution.as === 'delivered' && !txHashPattern.test(resolution.txHash)) {
    throw new InvalidResolution('a delivered on-ramp needs the transaction hash: 0x and 64 hex digits');
  }
  return resolveParked(onRampProgress, ref, { as: resolution.as, outcomes: onRampResolutions, note: resolution.note, plan: (record, detail) => plan(record, detail, resolution) });
}

function plan(record: OnRampRecord, detail: string, resolution: OnRampResolution): ResolutionPlan<OperationTransition<OnRampRecord>> {
  if (resolution.as === 'not-delivered') {
    const kept = record.received === null ? 'payment, if any,' : `${fiatText(BigInt(record.received), record.currency)} received`;
    return { transition: { to: 'FAILED', failure: 'not_delivered', detail }, done: `FAILED, nothing credited; the ${kept} stays in the house account for reconciliation` };
  }
  if (record.net === null || record.received === null) {
    return { unchanged: `on-ramp ${record.id} was parked before it was converted: there is no USDC amount that could have been delivered; nothing changed` };
  }
  if (record.txHash && record.txHash.toLowerCase() !== resolution.txHash.toLowerCase()) {
    return { unchanged: `on-ramp ${record.id} was sent in ${record.txHash}, not ${resolution.txHash}: nothing changed` };
  }
  return {
    transition: { to: 'DELIVERED', detail, set: { txHash: record.txHash ?? resolution.txHash }, ledger: deliveredCredit(record), event: deliveredEvent },
    done: `DELIVERED, ${usdcText(BigInt(record.net))} credited to the balance`,
  };
}
