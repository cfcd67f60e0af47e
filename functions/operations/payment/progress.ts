import { operationMoved } from '#platform/metrics.ts';
import { payoutProvider, type PayoutRequest } from '#providers/payout.ts';
import { PayoutUnanswered } from '#platform/providerErrors.ts';
import type { LedgerLeg } from '#store/ledger.ts';
import { getTransaction, transitionItems, type Transition, type TransactionRecord } from '#store/transactions.ts';
import type { TransactItem } from '#store/client.ts';
import { formatDecimal, scaleOf } from '#domain/money.ts';
import type { PaymentState } from '#domain/paymentStates.ts';
import { operationProgress, type StepResult as KitStepResult, type OperationRef } from '#operations/kit/progress.ts';
import { unlessUnavailable } from '#operations/kit/providerCall.ts';
import { backoffSeconds, nextPoll, waitedIn, type PollPolicy } from '#operations/kit/poll.ts';
import { writeWithLedger } from '#operations/kit/ledgerWrite.ts';

/**
 * The steps of the payment workflow (statemachines/payment.asl.json), one per Task state. Each
 * reads the payment, acts only from the state it expects, and moves it on with one conditional
 * write; a step delivered twice, or re-driven after a crash, finds the state already moved and
 * answers the outcome that state means. Money moves only with the state change that explains it:
 * the hold is released in the same transaction as FAILED or REFUNDED, and captured (the fee
 * realized) in the same transaction as RECONCILED.
 *
 * Outcomes drive the workflow's Choice states:
 *   settling   the provider accepted the payout; poll it (one paid at once is reconciled in the same step: done)
 *   retry      the provider was unavailable and nothing was created; wait and submit again
 *   processing the payout is not final yet; wait and poll again
 *   paid       paid out (by an operator's resolution); reconcile. A step that sees the payout paid reconciles it in the same write
 *   returned   the payout came back; refund
 *   done       the payment reached a terminal state or needs a person; the workflow ends
 */
export type PaymentOutcome = 'settling' | 'retry' | 'processing' | 'paid' | 'returned' | 'done';

/** What a step answers the workflow; `waitSeconds` is how long the next Wait lasts (10 s unless said). */
export type StepResult = KitStepResult<PaymentOutcome>;

/** How long the workflow waits before submitting again after the provider was unavailable. */
export const retryWaitSeconds = 30;

/** After this many unavailable answers the payment fails, its hold released (nothing was ever sent). */
export const maxSubmitAttempts = 5;

/** Polling a payout (the kit's poll): 10 s to an hour; after two weeks without a final answer the payment is parked for a person. */
export const maxSettlingDays = 14;
export const payoutPoll: PollPolicy = { leastSeconds: 10, mostSeconds: 3600, maxAgeDays: maxSettlingDays };

export const pollWaitSeconds = (settlingForMs: number) => backoffSeconds(payoutPoll, settlingForMs);

export type PaymentRef = OperationRef<'transactionId'>;

/** A payment's transition with the ledger legs it carries, when it moves money. */
export interface PaymentMove extends Transition {
  legs?: LedgerLeg[];
}

/** The kit's step shape over the payment's own items (functions/store/transactions.ts). */
export const paymentProgress = operationProgress<PaymentRef, TransactionRecord, PaymentState, PaymentOutcome, PaymentMove>({
  noun: 'payment',
  idOf: (ref) => ref.transactionId,
  refOf: (tx) => ({ organizationId: tx.organizationId, transactionId: tx.transactionId }),
  find: (ref) => getTransaction(ref.organizationId, ref.transactionId),
  statusOf: (tx) => tx.state,
  write,
  outcomeOf: (tx) => outcomeOf(tx.state),
});

const { from, settle } = paymentProgress;

export async function submitPayout(ref: PaymentRef): Promise<StepResult> {
  let tx = await paymentProgress.load(ref);
  if (tx.state === 'FUNDED' || tx.state === 'PENDING_RETRY') {
    tx = await paymentProgress.move(tx, { to: 'ROUTING', detail: `route ${tx.provider}`, set: { submitAttempts: tx.submitAttempts + 1 } });
  }
  // ROUTING: submit (again, after a crash: the provider is idempotent on the reference).
  if (tx.state !== 'ROUTING') return paymentProgress.outcomeOf(tx);

  const provider = payoutProvider();
  const request = payoutRequest(tx);
  return paymentProgress.callProvider(tx, {
    call: () => provider.submit(request),
    answered: (submission) => ({
      transition: submission.status === 'rejected'
        ? { to: 'FAILED', failure: 'payout_rejected', detail: `payout refused by the rail: ${submission.reason}`, legs: release(tx) }
        : submission.paidAmount === undefined
          ? { to: 'SETTLING', detail: accepted, set: { providerPayoutId: submission.providerPayoutId } }
          // Paid at once: nothing left to poll, so settled here through SETTLING and PAID_OUT in one write.
          : paidAndReconciled(tx, submission.paidAmount, { via: [{ state: 'SETTLING', detail: accepted }], set: { providerPayoutId: submission.providerPayoutId } }),
    }),
    unanswered: {
      error: PayoutUnanswered,
      askByReference: async () => ((await provider.status(request.reference)).status === 'unknown' ? undefined : { status: 'accepted' as const, providerPayoutId: request.reference }),
      inDoubt: { to: 'IN_DOUBT', detail: 'the payout provider did not answer; whether the payout was made is being reconciled' },
    },
    unavailable: {
      attempts: tx.submitAttempts,
      maxAttempts: maxSubmitAttempts,
      retry: { transition: { to: 'PENDING_RETRY', detail: `payout provider unavailable (attempt ${tx.submitAttempts} of ${maxSubmitAttempts}); retrying` }, waitSeconds: retryWaitSeconds },
      gaveUp: { to: 'FAILED', failure: 'payout_provider_unavailable', detail: `the payout provider did not answer ${tx.submitAttempts} attempts; nothing was sent`, legs: release(tx) },
    },
  });
}

export async function pollPayout(ref: PaymentRef): Promise<StepResult> {
  return from(ref, ['SETTLING'], async (tx) => {
    const report = await unlessUnavailable(() => payoutProvider().status(payoutRequest(tx).reference));
    if (!report) return { outcome: 'processing' };
    switch (report.status) {
      case 'processing': {
        const next = nextPoll(payoutPoll, waitedIn(tx, 'SETTLING'));
        if (next.overdue) return settle(tx, { to: 'NEEDS_ATTENTION', detail: `no final answer from the payout provider in ${maxSettlingDays} days` });
        return { outcome: 'processing', waitSeconds: next.waitSeconds };
      }
      case 'paid':
        return settle(tx, paidAndReconciled(tx, report.paidAmount));
      case 'returned':
        return settle(tx, { to: 'REFUNDING', detail: `payout returned: ${report.reason}` });
      case 'failed':
        return settle(tx, { to: 'FAILED', failure: 'payout_failed', detail: `payout failed: ${report.reason}`, legs: release(tx) });
      case 'review':
        return settle(tx, { to: 'NEEDS_ATTENTION', detail: `held by the payout provider: ${report.reason}` });
      case 'unknown':
        return settle(tx, { to: 'IN_DOUBT', detail: 'the payout provider no longer knows this payout; being reconciled' });
    }
  });
}

export async function refundPayment(ref: PaymentRef): Promise<StepResult> {
  return from(ref, ['REFUNDING'], (tx) => settle(tx, { to: 'REFUNDED', detail: `${formatDecimal(BigInt(tx.send), 6)} USDC returned to the balance`, legs: release(tx) }));
}

export async function reconcilePayment(ref: PaymentRef): Promise<StepResult> {
  return from(ref, ['PAID_OUT'], (tx) => settle(tx, reconciled(tx)));
}

const accepted = 'payout accepted by the rail';

/** RECONCILED: the hold captured, the fee realized (from PAID_OUT, or passing it). */
function reconciled(tx: TransactionRecord): PaymentMove {
  return { to: 'RECONCILED', detail: `fee of ${formatDecimal(BigInt(tx.fee), 6)} USDC realized`, legs: capture(tx) };
}

/**
 * Paid out, and reconciled in the same write: PAID_OUT is passed (its timeline entry and its
 * event), and the capture nothing else waits for is made with it. Run again, the write finds the
 * state moved and the journal entry there, and changes nothing.
 */
function paidAndReconciled(tx: TransactionRecord, paidAmount: bigint, before: Pick<PaymentMove, 'via' | 'set'> = {}): PaymentMove {
  const currency = tx.corridor.to;
  const paid = `${formatDecimal(paidAmount, scaleOf(currency)!)} ${currency} paid to the beneficiary`;
  return {
    ...reconciled(tx),
    via: [...(before.via ?? []), { state: 'PAID_OUT', detail: paid }],
    set: { ...before.set, paid: paidAmount.toString() },
  };
}

/** Anything the workflow did not expect: park the payment for a person, funds held, never guessed. */
export async function parkPayment(ref: PaymentRef & { error?: unknown }): Promise<StepResult> {
  return paymentProgress.park(ref, ['FUNDED', 'ROUTING', 'PENDING_RETRY', 'SETTLING', 'PAID_OUT', 'REFUNDING'], (tx) => ({
    to: 'NEEDS_ATTENTION',
    detail: `stopped in ${tx.state} by an internal error; operations will finish it`,
  }));
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

/**
 * One transition, with its ledger movement when it has one, in one DynamoDB transaction (the kit's
 * ledger write): the payment as written, or undefined when it had moved on meanwhile (a second
 * delivery won).
 */
async function write(tx: TransactionRecord, { legs, ...transition }: PaymentMove): Promise<TransactionRecord | undefined> {
  const { items, next } = transitionItems(tx, transition);
  const ledger = legs && {
    organizationId: tx.organizationId,
    entryId: `payment:${tx.transactionId}:${transition.to === 'RECONCILED' ? 'capture' : 'release'}`,
    operation: { kind: 'payment', id: tx.transactionId },
    legs,
    memo: `${transition.to.toLowerCase()} payment ${tx.transactionId}`,
    now: transition.now,
  };
  if (!(await writeWithLedger(items as TransactItem[], ledger))) return undefined;
  operationMoved('payment', transition.to);
  return next;
}

/** The hold goes back to the balance: nothing was paid, no fee is realized. */
export function release(tx: TransactionRecord): LedgerLeg[] {
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
