import { formatDecimal } from '#domain/money.ts';
import { operatorDetail, requireNote, resolveParked, type OperatorResolution, type ResolutionPlan } from '#operations/kit/resolution.ts';
import { paymentProgress, reconcilePayment, release, type PaymentMove, type PaymentRef } from './progress.ts';

/** How operations settled a parked payment with the provider (docs/decisions/063). */
export const paymentResolutions = ['paid', 'not-paid'] as const;
export type PaymentResolution = (typeof paymentResolutions)[number];

/**
 * Operations settle a payment parked IN_DOUBT or NEEDS_ATTENTION, after reconciling it with the
 * provider, through the kit's one resolution (functions/operations/kit/resolution.ts):
 *   paid      the provider paid: PAID_OUT (transaction.paid_out), then the normal reconciliation
 *             step: RECONCILED with the hold captured and the fee realized (transaction.reconciled)
 *   not-paid  nothing was paid: REFUNDED with the hold released (transaction.refunded); no fee
 * A resolution as paid interrupted between its two steps is finished by running it again.
 */
export async function resolvePayment(ref: PaymentRef & { as: PaymentResolution; note: string; now?: Date }): Promise<OperatorResolution> {
  if (ref.as === 'paid') {
    requireNote(ref.note);
    const current = await paymentProgress.load(ref);
    if (current.state === 'PAID_OUT' && current.timeline.at(-1)?.detail?.startsWith(operatorDetail(''))) {
      return reconcileResolved(ref, 'an earlier resolution as paid is finished: ');
    }
  }
  const answer = await resolveParked(paymentProgress, ref, {
    as: ref.as,
    outcomes: paymentResolutions,
    note: ref.note,
    plan: (record, detail): ResolutionPlan<PaymentMove> =>
      ref.as === 'paid'
        ? { transition: { to: 'PAID_OUT', detail, now: ref.now }, done: 'PAID_OUT' }
        : { transition: { to: 'REFUNDED', detail, now: ref.now, legs: release(record) }, done: `REFUNDED, ${formatDecimal(BigInt(record.send), 6)} USDC released to the balance` },
  });
  if (!answer.resolved || ref.as !== 'paid') return answer;
  return reconcileResolved(ref, `${answer.detail}: `);
}

/** PAID_OUT by a resolution → RECONCILED through the workflow's own step (idempotent: capture once). */
async function reconcileResolved(ref: PaymentRef, done: string): Promise<OperatorResolution> {
  await reconcilePayment(ref);
  const tx = await paymentProgress.load(ref);
  if (tx.state !== 'RECONCILED') return { resolved: true, status: tx.state, detail: `${done}${tx.state}` };
  return { resolved: true, status: tx.state, detail: `${done}RECONCILED, hold captured and fee of ${formatDecimal(BigInt(tx.fee), 6)} USDC realized` };
}
