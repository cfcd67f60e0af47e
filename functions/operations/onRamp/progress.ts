import type { StepResult, OperationRef } from '#operations/kit/progress.ts';
import { storedOperationProgress } from '#operations/kit/storedOperation.ts';
import { unlessUnavailable } from '#operations/kit/providerCall.ts';
import { backoffSeconds, waitedIn, type PollPolicy } from '#operations/kit/poll.ts';
import { DeliveryUnanswered, onRampProvider } from '#providers/onRamp.ts';
import { depositMovement } from '#store/ledger.ts';
import { ApiError } from '#platform/errors.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { formatDecimal, scaleOf } from '#domain/money.ts';
import { fiatToUsdcRate, figuresOf, isAtPar } from '#operations/onRamp/pricing.ts';
import { closeMarkerItems, providerReferenceOf, statusView, type OnRampRecord } from '#operations/onRamp/view.ts';

/** The on-ramp's id in the journal, namespaced: the caller chose it, and it must never meet a chain deposit's id there. */
export function onRampDepositId(onRampId: string): string {
  return `onramp:${onRampId}`;
}

/**
 * The steps of the on-ramp workflow (statemachines/onramp.asl.json), one per Task state. Each
 * reads the deposit, acts only from the stage it expects and moves it on with one conditional
 * write (the kit's `moveStoredOperation`); a step delivered twice, or re-driven after a crash, finds the stage
 * already moved and answers what that stage needs next. The USDC is credited in the same
 * transaction as DELIVERED and nowhere else, so a confirmation delivered twice credits once.
 *
 * A step answers as its outcome the step the workflow runs next, after `waitSeconds` (0: at once):
 *   open     open the collection (OPENING_COLLECTION)
 *   await    wait for the payment or the end of the window (AWAITING_PAYMENT)
 *   convert  convert the received fiat, or hand it back (PAYMENT_RECEIVED); fiat not at par is
 *            forwarded to the FX desk first (FORWARDING), then converted
 *   deliver  mint and send the USDC to the home wallet (CONVERTING, DELIVERING without a txHash)
 *   confirm  wait for the delivery to confirm on chain, then credit (DELIVERING with a txHash)
 *   done     an end state: DELIVERED, REFUNDED, FAILED, EXPIRED, IN_DOUBT
 */
export type OnRampNext = 'open' | 'await' | 'convert' | 'deliver' | 'confirm' | 'done';

export type OnRampStepResult = StepResult<OnRampNext>;

export type OnRampRef = OperationRef<'onRampId'>;

/** A provider that did not answer is asked again after this long (nothing happened there). */
export const retrySeconds = 30;

/** After this many unavailable answers to the delivery the deposit fails, the funds held for reconciliation (nothing was sent: decision 124). */
export const maxDeliveryAttempts = 5;

/** Polls (the kit's poll) back off with the age of the wait: 5 s to 10 min; a delivery is followed until it confirms. */
export const onRampPoll: PollPolicy = { leastSeconds: 5, mostSeconds: 600 };

/** The poll's wait, never past the window's end. */
export function pollWaitSeconds(waitingForMs: number, untilEndMs?: number): number {
  const backoff = backoffSeconds(onRampPoll, waitingForMs);
  if (untilEndMs === undefined) return backoff;
  return Math.max(1, Math.min(backoff, Math.ceil(untilEndMs / 1000)));
}

export function nextOf(record: OnRampRecord): OnRampNext {
  switch (record.status) {
    case 'OPENING_COLLECTION':
      return 'open';
    case 'AWAITING_PAYMENT':
      return 'await';
    case 'PAYMENT_RECEIVED':
    case 'FORWARDING':
      return 'convert';
    case 'CONVERTING':
      return 'deliver';
    case 'DELIVERING':
      return record.txHash ? 'confirm' : 'deliver';
    default:
      return 'done';
  }
}

/** The kit's step shape over the deposit's operation items. */
export const onRampProgress = storedOperationProgress<OnRampRef, OnRampRecord, OnRampNext>({ workflow: 'onRamp', kind: 'onramp', outcomeOf: nextOf });

const { from, load, settle: move } = onRampProgress;

export function fiatText(minor: bigint, currency: string): string {
  return `${formatDecimal(minor, scaleOf(currency) ?? 2)} ${currency}`;
}

export const usdcText = (minor: bigint) => `${formatDecimal(minor, 6)} USDC`;

export async function openCollection(ref: OnRampRef): Promise<OnRampStepResult> {
  return from(ref, ['OPENING_COLLECTION'], open);
}

async function open(record: OnRampRecord): Promise<OnRampStepResult> {
  const answer = await unlessUnavailable(() =>
    onRampProvider().openCollection({
      reference: providerReferenceOf(record),
      rail: record.rail,
      currency: record.currency,
      amount: BigInt(record.amount),
      expiresAt: new Date(record.expiresAt!),
    }),
  );
  if (!answer) {
    if (Date.now() >= Date.parse(record.expiresAt!)) {
      return move(record, { to: 'FAILED', failure: 'collection_unavailable', detail: 'the collection provider did not answer within the payment window', extraItems: closeMarkerItems(record) });
    }
    return { outcome: 'open', waitSeconds: retrySeconds };
  }
  if (answer.status === 'refused') {
    return move(record, { to: 'FAILED', failure: 'collection_refused', detail: `the collection could not be opened: ${answer.reason}`, extraItems: closeMarkerItems(record) });
  }
  return move(record, { to: 'AWAITING_PAYMENT', detail: `collection opened; waiting for the wire quoting ${record.instructions && 'reference' in record.instructions ? record.instructions.reference : 'the reference'}` });
}

export async function awaitPayment(ref: OnRampRef): Promise<OnRampStepResult> {
  return from(ref, ['AWAITING_PAYMENT'], watchWindow);
}

async function watchWindow(record: OnRampRecord): Promise<OnRampStepResult> {
  // The time is read before the provider: a payment it reports after this moment was made before the window closed.
  const now = Date.now();
  const endsAt = Date.parse(record.expiresAt!);
  const waiting = () => ({ outcome: 'await' as const, waitSeconds: pollWaitSeconds(now - Date.parse(record.createdAt), endsAt - now) });

  if (record.rail === 'pix') {
    const state = await unlessUnavailable(() => onRampProvider().collectionStatus(providerReferenceOf(record)));
    if (!state) return { outcome: 'await', waitSeconds: retrySeconds };
    if (state.status === 'paid') {
      return move(record, { to: 'PAYMENT_RECEIVED', detail: `PIX payment of ${fiatText(state.amount, record.currency)} received`, set: { received: state.amount.toString() } });
    }
    if (state.status === 'unknown') {
      return move(record, { to: 'IN_DOUBT', failure: 'collection_unknown', detail: 'the PIX provider no longer knows this code; being reconciled' });
    }
  }
  // A wire is attributed by the statement line itself (functions/operations/onRamp/wireDeposits.ts); here only the window is watched.
  if (now >= endsAt) {
    return move(record, { to: 'EXPIRED', detail: 'no payment arrived within the window; open a new deposit with a new key', extraItems: closeMarkerItems(record) });
  }
  return waiting();
}

export async function convertPayment(ref: OnRampRef): Promise<OnRampStepResult> {
  return from(ref, ['PAYMENT_RECEIVED', 'FORWARDING'], (record) => (record.status === 'FORWARDING' ? convertAtRate(record) : convert(record)));
}

async function convert(record: OnRampRecord): Promise<OnRampStepResult> {
  const received = BigInt(record.received!);
  const answer = await unlessUnavailable(() => onRampProvider().convert({ reference: providerReferenceOf(record), currency: record.currency, amount: received }));
  if (!answer) return { outcome: 'convert', waitSeconds: retrySeconds };
  if (answer.status === 'returned') {
    return move(record, {
      to: 'REFUNDED',
      detail: `${fiatText(received, record.currency)} returned to the payer before conversion: ${answer.reason}`,
      event: (next) => ({ type: 'onramp.refunded', data: statusView(next) }),
    });
  }
  if (answer.status === 'refused') {
    return move(record, { to: 'FAILED', failure: 'conversion_refused', detail: `stopped before delivery: ${answer.reason}; the funds are held for reconciliation` });
  }

  if (record.rail === 'pix') {
    // The price was fixed when the code was opened.
    return move(record, { to: 'CONVERTING', detail: `${fiatText(received, record.currency)} converting to ${usdcText(BigInt(record.gross!))} at the price fixed when the code was opened` });
  }
  if (!isAtPar(record.currency)) {
    // USD is minted one for one where it lands; any other currency leaves the house account for the
    // FX desk first, and is converted at the rate of the moment it arrives there.
    return move(record, { to: 'FORWARDING', detail: `${fiatText(received, record.currency)} forwarded from the house account to the FX desk` });
  }
  return convertAtRate(record);
}

/** PAYMENT_RECEIVED (at par) or FORWARDING → CONVERTING at the rate of now, floored. */
async function convertAtRate(record: OnRampRecord): Promise<OnRampStepResult> {
  const received = BigInt(record.received!);
  const priced = await unlessUnavailable(() => fiatToUsdcRate(record.currency));
  if (!priced) return { outcome: 'convert', waitSeconds: retrySeconds };
  const figures = figuresOf(received, record.currency, priced.rate, record.feeBps);
  if (figures.net <= 0n) {
    return move(record, { to: 'FAILED', failure: 'amount_too_small', detail: 'nothing would be left to deliver after the fee; the funds are held for reconciliation' });
  }
  const atPar = priced.provider === 'par';
  return move(record, {
    to: 'CONVERTING',
    detail: atPar
      ? `${fiatText(received, record.currency)} converting one for one to ${usdcText(figures.gross)}`
      : `${fiatText(received, record.currency)} converting to ${usdcText(figures.gross)} at ${priced.provider}'s rate, floored`,
    set: {
      gross: figures.gross.toString(),
      fee: figures.fee.toString(),
      net: figures.net.toString(),
      rate: { numerator: priced.rate.numerator.toString(), denominator: priced.rate.denominator.toString() },
      fxProvider: atPar ? null : priced.provider,
    },
  });
}

export async function deliverUsdc(ref: OnRampRef): Promise<OnRampStepResult> {
  let record = await load(ref);
  if (record.status === 'CONVERTING') {
    let home;
    try {
      home = await homeWalletOf(record.organizationId);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      return move(record, { to: 'FAILED', failure: error.code, detail: 'stopped before delivery: there is no single home wallet to deliver to; the funds are held for reconciliation' });
    }
    // A wallet still being opened has no address yet: ask again shortly.
    if (home.status !== 'active' || !home.address || !home.chain) return { outcome: 'deliver', waitSeconds: 10 };
    record = await onRampProgress.move(record, {
      to: 'DELIVERING',
      detail: `minting ${usdcText(BigInt(record.net!))} and sending it to the home wallet on ${home.chain}`,
      set: { deliveryNetwork: home.chain, deliveryAddress: home.address, deliveryAttempts: 1 },
    });
  }
  if (record.status !== 'DELIVERING' || record.txHash) return { outcome: nextOf(record) };

  const provider = onRampProvider();
  const reference = providerReferenceOf(record);
  const attempts = record.deliveryAttempts ?? 1;
  return onRampProgress.callProvider(record, {
    call: () => provider.deliver({ reference, network: record.deliveryNetwork!, address: record.deliveryAddress!, amount: BigInt(record.net!), fiatAmount: BigInt(record.received!) }),
    answered: (answer) => ({
      transition: answer.status === 'rejected'
        ? { to: 'FAILED', failure: 'delivery_rejected', detail: `stopped before delivery: ${answer.reason}; the funds are held for reconciliation` }
        : // Same stage, one more fact: the timeline is left alone.
          { to: 'DELIVERING', silent: true, set: { txHash: answer.txHash } },
    }),
    // It may have been sent: never sent again.
    unanswered: {
      error: DeliveryUnanswered,
      askByReference: async () => {
        const known = await provider.deliveryStatus(reference);
        return known.status === 'unknown' ? undefined : { status: 'sent' as const, txHash: known.txHash };
      },
      inDoubt: { to: 'IN_DOUBT', failure: 'delivery_unanswered', detail: 'the issuer did not answer the delivery; whether the USDC was sent is being reconciled (it is never sent again)' },
    },
    unavailable: {
      attempts,
      maxAttempts: maxDeliveryAttempts,
      // Same stage, one more attempt counted: the timeline is left alone.
      retry: { transition: { to: 'DELIVERING', silent: true, set: { deliveryAttempts: attempts + 1 } }, outcome: 'deliver', waitSeconds: retrySeconds },
      gaveUp: { to: 'FAILED', failure: 'delivery_unavailable', detail: `the issuer did not answer ${attempts} attempts to deliver; nothing was sent, the funds are held for reconciliation` },
    },
  });
}

export async function confirmDelivery(ref: OnRampRef): Promise<OnRampStepResult> {
  return from(ref, ['DELIVERING'], confirm);
}

async function confirm(record: OnRampRecord): Promise<OnRampStepResult> {
  if (!record.txHash) return { outcome: 'deliver' };
  const state = await unlessUnavailable(() => onRampProvider().deliveryStatus(providerReferenceOf(record)));
  if (!state) return { outcome: 'confirm', waitSeconds: retrySeconds };
  if (state.status === 'pending') {
    return { outcome: 'confirm', waitSeconds: pollWaitSeconds(waitedIn(record, 'DELIVERING')) };
  }
  if (state.status === 'unknown') {
    return move(record, { to: 'IN_DOUBT', failure: 'delivery_unknown', detail: 'the issuer no longer knows this delivery; being reconciled' });
  }
  return move(record, {
    to: 'DELIVERED',
    detail: `${usdcText(BigInt(record.net!))} confirmed in the home wallet (${state.txHash})`,
    ledger: deliveredCredit(record),
    event: deliveredEvent,
  });
}

/** The credit that goes with DELIVERED, and nowhere else: the workflow's confirmation and an operator's resolution. */
export function deliveredCredit(record: OnRampRecord) {
  const net = BigInt(record.net!);
  return depositMovement({
    organizationId: record.organizationId,
    depositId: onRampDepositId(record.id),
    amount: net,
    rail: record.rail,
    memo: `${record.rail} on-ramp ${record.id}: ${fiatText(BigInt(record.received!), record.currency)} delivered as ${usdcText(net)}`,
  });
}

export const deliveredEvent = (next: OnRampRecord) => ({ type: 'onramp.delivered', data: statusView(next) });

/** Anything the workflow did not expect: park the deposit IN_DOUBT for a person, never guessed. */
export async function parkOnRamp(ref: OnRampRef & { error?: unknown }): Promise<OnRampStepResult> {
  return onRampProgress.park(ref, ['OPENING_COLLECTION', 'AWAITING_PAYMENT', 'PAYMENT_RECEIVED', 'FORWARDING', 'CONVERTING', 'DELIVERING'], (record) => ({
    to: 'IN_DOUBT',
    failure: 'internal_error',
    detail: `stopped in ${record.status} by an internal error; operations will finish it`,
    extraItems: record.status === 'AWAITING_PAYMENT' || record.status === 'OPENING_COLLECTION' ? closeMarkerItems(record) : [],
  }));
}

