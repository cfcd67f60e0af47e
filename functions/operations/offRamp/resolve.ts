import { formatDecimal } from '#domain/money.ts';
import type { OperationTransition } from '#store/operations.ts';
import { resolveParked, type OperatorResolution, type ResolutionPlan } from '#operations/kit/resolution.ts';
import { offRampStatusView, type OffRampRecord } from './view.ts';
import { capture, movement, offRampPaidEvent, offRampProgress, release, type OffRampRef } from './progress.ts';

export const offRampResolutions = ['paid', 'refunded'] as const;
export type OffRampResolution = { as: (typeof offRampResolutions)[number]; note: string };

/**
 * An off-ramp parked IN_DOUBT, after operations reconciled with the provider, through the kit's
 * one resolution: `paid` (PAID, the same capture, closedAs and offramp.paid as the workflow's
 * payout) or `refunded` (the USDC came back: REFUNDED, hold released, as the workflow's return).
 * An off-ramp parked before its hold (PULLING) has nothing held to capture or release: refused,
 * nothing changes.
 */
export async function resolveOffRamp(ref: OffRampRef, resolution: OffRampResolution): Promise<OperatorResolution> {
  return resolveParked(offRampProgress, ref, {
    as: resolution.as,
    outcomes: offRampResolutions,
    note: resolution.note,
    plan: (record, detail): ResolutionPlan<OperationTransition<OffRampRecord>> => {
      if (!record.timeline.some((entry) => entry.status === 'PULLED')) {
        return { unchanged: `off-ramp ${record.id} was parked before its USDC was held: nothing to capture or release; nothing changed` };
      }
      const amount = `${formatDecimal(BigInt(record.amount), 6)} USDC`;
      return resolution.as === 'paid'
        ? {
            transition: {
              to: 'PAID',
              detail,
              set: { closedAs: 'paid' },
              ledger: movement(record, 'capture', capture(record)),
              event: (next) => ({ type: offRampPaidEvent, data: offRampStatusView(next) }),
            },
            done: `PAID, hold of ${amount} captured, fee of ${formatDecimal(BigInt(record.fee), 6)} USDC realized`,
          }
        : {
            transition: { to: 'REFUNDED', detail, set: { closedAs: 'returned' }, ledger: movement(record, 'release', release(record)) },
            done: `REFUNDED, ${amount} released to the balance`,
          };
    },
  });
}
