import { logger } from '#platform/logger.ts';
import { operationMoved } from '#platform/metrics.ts';
import { payoutProvider, type PayoutRequest } from '#providers/payout.ts';
import { applyMovement, type LedgerLeg } from '#store/ledger.ts';
import { applyTransition, getTransaction, transitionItems, type Transition, type TransactionRecord } from '#store/transactions.ts';
import { formatDecimal, scaleOf } from '#domain/money.ts';
import { InvalidResolution, operatorDetail, parkedStatuses, requireNote, type OperatorResolution } from '#operations/kit/resolution.ts';
import type { PaymentState } from '#domain/paymentStates.ts';

/**
 * The steps of the payment workflow (statemachines/payment.asl.json), one per Task state. Each
 * reads the payment, acts only from the state it expects, and moves it on with one conditional
 * write; a step delivered twice, or re-driven after a crash, finds the state already moved and
 * answers the outcome that state means. Money moves only with the state change that explains it:
 * the hold is released in the same transaction as FAILED or REFUNDED, and captured (the fee
 * realized) in the same transaction as RECONCILED.
 *
 * Outcomes drive the workflow's Choice states:
 *   settling   the provider accepted the payout; poll it
 *   retry      the provider was unavailable and nothing was created; wait and submit again
 *   processing the payout is not final yet; wait and poll again
 *   paid       paid out; reconcile
 *   returned   the payout came back; refund
 *   done       the payment reached a terminal state or needs a person; the workflow ends
 */
export type PaymentOutcome = 'settling' | 'retry' | 'processing' | 'paid' | 'returned' | 'done';

/** What a step answers the workflow; `waitSeconds` is how long the next Wait lasts (10 s unless said). */
export interface StepResult {
  outcome: PaymentOutcome;
  waitSeconds?: number;
}

/** How long the workflow waits before submitting again after the provider was unavailable. */
export const retryWaitSeconds = 30;

/** After this many unavailable answers the payment fails, its hold released (nothing was ever sent). */
export const maxSubmitAttempts = 5;

/**
 * Polling a payout backs off with its age (a tenth of the time it has been settling, 10 s to an
 * hour), so a slow rail costs a few dozen workflow rounds a day, far from Step Functions' history
 * limit; after two weeks without a final answer the payment is parked for a person.
 */
export const maxSettlingDays = 14;

export function pollWaitSeconds(settlingForMs: number): number {
  return Math.min(3600, Math.max(10, Math.floor(settlingForMs / 10_000)));
}

export interface PaymentRef {
  organizationId: string;
  transactionId: string;
}

export async function submitPayout(ref: PaymentRef): Promise<StepResult> {
  let tx = await load(ref);
  if (tx.state === 'FUNDED' || tx.state === 'PENDING_RETRY') {
    const routed = await applyTransition(tx, {
      to: 'ROUTING',
      detail: `route ${tx.provider}`,
      set: { submitAttempts: tx.submitAttempts + 1 },
    });
    tx = routed ?? (await load(ref));
  }
  // ROUTING: submit (again, after a crash: the provider is idempotent on the reference).
  if (tx.state !== 'ROUTING') return { outcome: outcomeOf(tx.state) };

  const provider = payoutProvider();
  const request = payoutRequest(tx);
  let submission;
  try {
    submission = await provider.submit(request);
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ProviderUnavailable') {
      if (tx.submitAttempts >= maxSubmitAttempts) {
        return settle(tx, { to: 'FAILED', failure: 'payout_provider_unavailable', detail: `the payout provider did not answer ${tx.submitAttempts} attempts; nothing was sent` }, release(tx));
      }
      const retrying = await settle(tx, { to: 'PENDING_RETRY', detail: `payout provider unavailable (attempt ${tx.submitAttempts} of ${maxSubmitAttempts}); retrying` });
      return { ...retrying, waitSeconds: retryWaitSeconds };
    }
    if (name !== 'PayoutUnanswered') throw error;
    // The call may have landed. Ask once by reference; never submit blindly again.
    const known = await provider.status(request.reference).catch(() => ({ status: 'unknown' as const }));
    if (known.status === 'unknown') {
      return settle(tx, { to: 'IN_DOUBT', detail: 'the payout provider did not answer; whether the payout was made is being reconciled' });
    }
    submission = { status: 'accepted' as const, providerPayoutId: request.reference };
  }
  if (submission.status === 'rejected') {
    return settle(tx, { to: 'FAILED', failure: 'payout_rejected', detail: `payout refused by the rail: ${submission.reason}` }, release(tx));
  }
  return settle(tx, { to: 'SETTLING', detail: 'payout accepted by the rail', set: { providerPayoutId: submission.providerPayoutId } });
}

export async function pollPayout(ref: PaymentRef): Promise<StepResult> {
  const tx = await load(ref);
  if (tx.state !== 'SETTLING') return { outcome: outcomeOf(tx.state) };
  let report;
  try {
    report = await payoutProvider().status(payoutRequest(tx).reference);
  } catch (error) {
    if ((error as Error).name === 'ProviderUnavailable') return { outcome: 'processing' };
    throw error;
  }
  switch (report.status) {
    case 'processing': {
      const since = [...tx.timeline].reverse().find((entry) => entry.state === 'SETTLING')?.at ?? tx.updatedAt;
      const settlingForMs = Date.now() - Date.parse(since);
      if (settlingForMs > maxSettlingDays * 86_400_000) {
        return settle(tx, { to: 'NEEDS_ATTENTION', detail: `no final answer from the payout provider in ${maxSettlingDays} days` });
      }
      return { outcome: 'processing', waitSeconds: pollWaitSeconds(settlingForMs) };
    }
    case 'paid': {
      const currency = tx.corridor.to;
      const paid = `${formatDecimal(report.paidAmount, scaleOf(currency)!)} ${currency} paid to the beneficiary`;
      return settle(tx, { to: 'PAID_OUT', detail: paid, set: { paid: report.paidAmount.toString() } });
    }
    case 'returned':
      return settle(tx, { to: 'REFUNDING', detail: `payout returned: ${report.reason}` });
    case 'failed':
      return settle(tx, { to: 'FAILED', failure: 'payout_failed', detail: `payout failed: ${report.reason}` }, release(tx));
    case 'review':
      return settle(tx, { to: 'NEEDS_ATTENTION', detail: `held by the payout provider: ${report.reason}` });
    case 'unknown':
      return settle(tx, { to: 'IN_DOUBT', detail: 'the payout provider no longer knows this payout; being reconciled' });
  }
}

export async function refundPayment(ref: PaymentRef): Promise<StepResult> {
  const tx = await load(ref);
  if (tx.state !== 'REFUNDING') return { outcome: outcomeOf(tx.state) };
  return settle(tx, { to: 'REFUNDED', detail: `${formatDecimal(BigInt(tx.send), 6)} USDC returned to the balance` }, release(tx));
}

export async function reconcilePayment(ref: PaymentRef): Promise<StepResult> {
  const tx = await load(ref);
  if (tx.state !== 'PAID_OUT') return { outcome: outcomeOf(tx.state) };
  return settle(tx, { to: 'RECONCILED', detail: `fee of ${formatDecimal(BigInt(tx.fee), 6)} USDC realized` }, capture(tx));
}

/** Anything the workflow did not expect: park the payment for a person, funds held, never guessed. */
export async function parkPayment(ref: PaymentRef & { error?: unknown }): Promise<StepResult> {
  const tx = await load(ref);
  if (!['FUNDED', 'ROUTING', 'PENDING_RETRY', 'SETTLING', 'PAID_OUT', 'REFUNDING'].includes(tx.state)) return { outcome: outcomeOf(tx.state) };
  logger.error('payment parked after an unexpected workflow error', { transactionId: tx.transactionId, state: tx.state, error: ref.error });
  return settle(tx, { to: 'NEEDS_ATTENTION', detail: `stopped in ${tx.state} by an internal error; operations will finish it` });
}

/** How operations settled a parked payment with the provider (docs/decisions/063). */
export const paymentResolutions = ['paid', 'not-paid'] as const;
export type PaymentResolution = (typeof paymentResolutions)[number];

/**
 * Operations settle a payment parked IN_DOUBT or NEEDS_ATTENTION, after reconciling it with the
 * provider. One conditional transition from the parked state, with the money its outcome implies:
 *   paid      the provider paid: PAID_OUT (transaction.paid_out), then the normal reconciliation
 *             step: RECONCILED with the hold captured and the fee realized (transaction.reconciled)
 *   not-paid  nothing was paid: REFUNDED with the hold released (transaction.refunded); no fee
 * Anything else (already resolved, never parked, resolved meanwhile by someone else) writes
 * nothing and answers why. A resolution as paid interrupted between its two steps is finished
 * by running it again.
 */
export async function resolvePayment(ref: PaymentRef & { as: PaymentResolution; note: string; now?: Date }): Promise<OperatorResolution> {
  if (!paymentResolutions.includes(ref.as)) {
    throw new InvalidResolution(`a payment resolves as ${paymentResolutions.join(' or ')}`);
  }
  const detail = operatorDetail(requireNote(ref.note));
  const tx = await load(ref);
  if (ref.as === 'paid' && tx.state === 'PAID_OUT' && tx.timeline.at(-1)?.detail?.startsWith(operatorDetail(''))) {
    return reconcileResolved(ref, 'an earlier resolution as paid is finished: ');
  }
  if (!parkedStatuses.includes(tx.state)) {
    return { resolved: false, status: tx.state, detail: `payment ${tx.transactionId} is ${tx.state}, not IN_DOUBT or NEEDS_ATTENTION: nothing changed` };
  }
  const written = ref.as === 'paid'
    ? await write(tx, { to: 'PAID_OUT', detail, now: ref.now })
    : await write(tx, { to: 'REFUNDED', detail, now: ref.now }, release(tx));
  if (!written) {
    const now = await load(ref);
    return { resolved: false, status: now.state, detail: `payment ${tx.transactionId} moved from ${tx.state} to ${now.state} meanwhile: nothing changed` };
  }
  if (ref.as === 'paid') return reconcileResolved(ref, `${tx.state} → PAID_OUT: `);
  return { resolved: true, status: written.state, detail: `${tx.state} → REFUNDED, ${formatDecimal(BigInt(tx.send), 6)} USDC released to the balance` };
}

/** PAID_OUT by a resolution → RECONCILED through the workflow's own step (idempotent: capture once). */
async function reconcileResolved(ref: PaymentRef, done: string): Promise<OperatorResolution> {
  await reconcilePayment(ref);
  const tx = await load(ref);
  if (tx.state !== 'RECONCILED') return { resolved: true, status: tx.state, detail: `${done}${tx.state}` };
  return { resolved: true, status: tx.state, detail: `${done}RECONCILED, hold captured and fee of ${formatDecimal(BigInt(tx.fee), 6)} USDC realized` };
}

/** What a payment already in `state` means for the workflow. */
export function outcomeOf(state: PaymentState): PaymentOutcome {
  switch (state) {
    case 'FUNDED':
    case 'PENDING_RETRY':
    // Not yet known to the provider as far as we recorded: submit again (idempotent on the reference).
    case 'ROUTING':
      return 'retry';
    case 'SETTLING':
      return 'processing';
    case 'PAID_OUT':
      return 'paid';
    case 'REFUNDING':
      return 'returned';
    default:
      return 'done';
  }
}

async function load(ref: PaymentRef): Promise<TransactionRecord> {
  const tx = await getTransaction(ref.organizationId, ref.transactionId);
  if (!tx) throw Object.assign(new Error(`payment ${ref.transactionId} not found`), { name: 'PaymentNotFound' });
  return tx;
}

/**
 * One transition, with its ledger movement when it has one, in one transaction. If the payment
 * was moved on meanwhile (a second delivery won), nothing is written and the outcome of the
 * state it is now in is answered.
 */
async function settle(tx: TransactionRecord, transition: Transition, legs?: LedgerLeg[]): Promise<StepResult> {
  const next = await write(tx, transition, legs);
  return { outcome: outcomeOf((next ?? (await load(tx))).state) };
}

/** The transition and its movement in one transaction: the payment as written, or undefined when it had moved on. */
async function write(tx: TransactionRecord, transition: Transition, legs?: LedgerLeg[]): Promise<TransactionRecord | undefined> {
  if (!legs) return applyTransition(tx, transition);
  const { items, next } = transitionItems(tx, transition);
  try {
    await applyMovement(
      {
        organizationId: tx.organizationId,
        entryId: `payment:${tx.transactionId}:${transition.to === 'RECONCILED' ? 'capture' : 'release'}`,
        operation: { kind: 'payment', id: tx.transactionId },
        legs,
        memo: `${transition.to.toLowerCase()} payment ${tx.transactionId}`,
        now: transition.now,
      },
      items as never,
    );
    operationMoved('payment', transition.to);
    return next;
  } catch (error) {
    const name = (error as Error).name;
    if (name !== 'TransactionConflict' && name !== 'MovementAlreadyApplied') throw error;
    return undefined;
  }
}

/** The hold goes back to the balance: nothing was paid, no fee is realized. */
function release(tx: TransactionRecord): LedgerLeg[] {
  const send = BigInt(tx.send);
  return [
    { account: 'held', amount: -send },
    { account: 'available', amount: send },
  ];
}

/** The hold is spent: the payout, the network crossing, the margin and the fee each to their account. */
function capture(tx: TransactionRecord): LedgerLeg[] {
  const send = BigInt(tx.send);
  const fee = BigInt(tx.fee);
  const networkFee = tx.networkFee === null ? 0n : BigInt(tx.networkFee);
  const margin = tx.margin ? BigInt(tx.margin.amount) : 0n;
  const legs: LedgerLeg[] = [
    { account: 'held', amount: -send },
    { account: `payout:${tx.provider}`, amount: send - fee - networkFee - margin },
    { account: 'revenue:fees', amount: fee },
  ];
  if (margin > 0n) legs.push({ account: 'revenue:margin', amount: margin });
  if (networkFee > 0n) legs.push({ account: 'expense:network-fees', amount: networkFee });
  return legs;
}

function payoutRequest(tx: TransactionRecord): PayoutRequest {
  return {
    reference: `${tx.organizationId}:${tx.transactionId}`,
    provider: tx.provider,
    corridor: tx.corridor,
    amount: BigInt(tx.receive),
    currency: tx.corridor.to,
    sourceAmount: BigInt(tx.send),
    beneficiary: tx.beneficiary,
  };
}
