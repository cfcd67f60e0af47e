import type { StepResult, OperationRef } from '#operations/kit/progress.ts';
import { storedOperationProgress } from '#operations/kit/storedOperation.ts';
import { unlessUnavailable } from '#operations/kit/providerCall.ts';
import { nextPoll, waitedIn } from '#operations/kit/poll.ts';
import { OffRampDepositUnanswered, offRampProvider, type OffRampDepositRequest } from '#providers/offRamp.ts';
import { InsufficientFunds, type LedgerLeg, type LedgerMovement } from '#store/ledger.ts';
import { formatDecimal, scaleOf } from '#domain/money.ts';
import { screenOffRampPayee } from '#operations/compliance/holds.ts';
import { offRampStatusView, type OffRampRecord } from '#operations/offRamp/view.ts';
import { payoutRailOf } from '#domain/offRampPricing.ts';
import { maxSettlingDays, payoutPoll } from '#operations/payment/progress.ts';
import type { OffRampStage } from '#schemas/offramps.ts';

/**
 * The steps of the off-ramp workflow (statemachines/offramp.asl.json), one per Task state, on the
 * kit's progress shape: each reads the off-ramp, acts only from the stage it expects, and moves it
 * on with one conditional write (the kit's `moveStoredOperation`). A step
 * delivered twice, or re-driven after a crash, finds the stage already moved and does nothing
 * twice. Money moves only with the stage that explains it, in the same transaction:
 *
 *   PULLING → PULLED      hold: available → held (does not fit, or the payee is now listed: FAILED, nothing moved)
 *   PULLED → DEPOSITING   the USDC is sent to the provider (idempotent on the reference)
 *   DEPOSITING → CREDITED the provider took it; refused: FAILED, hold released; unanswered: IN_DOUBT
 *   CREDITED → CONVERTING → SETTLING → PAYING, as the provider reports the payout
 *   PAYING → PAID         capture: held → payout (the provider), fee → revenue; event offramp.paid
 *   PAYING → REFUNDING → REFUNDED   the bank returned the payout: held → available
 *
 * Outcomes drive the workflow's Choice states:
 *   pull      not yet held: hold
 *   held      held: deposit with the provider
 *   retry     the provider was unavailable and nothing was sent: wait, deposit again
 *   paying    the provider has it: follow the payout (at once)
 *   waiting   the payout is not final yet: wait, follow again
 *   returned  the payout came back: release the hold
 *   done      PAID, REFUNDED, FAILED or IN_DOUBT; the workflow ends
 */
export type OffRampOutcome = 'pull' | 'held' | 'retry' | 'paying' | 'waiting' | 'returned' | 'done';

export type OffRampStepResult = StepResult<OffRampOutcome>;

export type OffRampRef = OperationRef<'offRampId'>;

/** After this many unavailable answers to the deposit the off-ramp fails, its hold released (nothing was sent). */
export const maxDepositAttempts = 5;
export const depositRetrySeconds = 30;

export const offRampPaidEvent = 'offramp.paid';

/** The kit's step shape over the off-ramp's operation items. */
export const offRampProgress = storedOperationProgress<OffRampRef, OffRampRecord, OffRampOutcome>({ workflow: 'offRamp', kind: 'offramp', outcomeOf: (record) => outcomeOf(record.status) });

const { from, settle } = offRampProgress;

/** PULLING → PULLED with the hold. */
export async function holdOffRampFunds(ref: OffRampRef): Promise<OffRampStepResult> {
  return from(ref, ['PULLING'], pull);
}

/** PULLED → DEPOSITING (an attempt counted), then the deposit with the provider. */
export async function depositOffRamp(ref: OffRampRef): Promise<OffRampStepResult> {
  return from(ref, ['PULLED', 'DEPOSITING'], async (held) => {
    const record = held.status === 'PULLED'
      ? await offRampProgress.move(held, {
          to: 'DEPOSITING',
          detail: `sending ${formatDecimal(sentAmount(held), 6)} USDC to the off-ramp provider on ${held.network}`,
          set: { depositAttempts: held.depositAttempts + 1 },
        })
      : held;
    return record.status === 'DEPOSITING' ? deposit(record) : offRampProgress.outcomeOf(record);
  });
}

/** CREDITED → CONVERTING → SETTLING → PAYING → PAID (or REFUNDING), as the provider reports the payout. */
export async function followOffRampPayout(ref: OffRampRef): Promise<OffRampStepResult> {
  return from(ref, ['CREDITED', 'CONVERTING', 'SETTLING', 'PAYING'], follow);
}

/** REFUNDING → REFUNDED with the hold released. */
export async function releaseOffRampHold(ref: OffRampRef): Promise<OffRampStepResult> {
  return from(ref, ['REFUNDING'], (record) =>
    settle(record, {
      to: 'REFUNDED',
      detail: `${formatDecimal(BigInt(record.amount), 6)} USDC returned to the balance`,
      set: { closedAs: 'returned' },
      ledger: movement(record, 'release', release(record)),
    }),
  );
}

/** Anything the workflow did not expect: park the off-ramp IN_DOUBT for a person, money where it is, never guessed. */
export async function parkOffRamp(ref: OffRampRef & { error?: unknown }): Promise<OffRampStepResult> {
  return offRampProgress.park(ref, ['PULLING', 'PULLED', 'DEPOSITING', 'CREDITED', 'CONVERTING', 'SETTLING', 'PAYING', 'REFUNDING'], (record) => ({
    to: 'IN_DOUBT',
    detail: `stopped in ${record.status} by an internal error; operations will finish it`,
    set: { closedAs: 'internal_error' },
  }));
}

async function pull(record: OffRampRecord): Promise<OffRampStepResult> {
  const amount = BigInt(record.amount);
  // The screening list may have changed since acceptance: the payee is screened again before any USDC moves (decision 078).
  const held = await screenOffRampPayee({ organizationId: record.organizationId, offRampId: record.id, requestHash: record.requestHash, beneficiary: record.beneficiary, now: new Date() });
  if (held) {
    return settle(record, {
      to: 'FAILED',
      failure: 'compliance_hold',
      detail: 'held for compliance review before any USDC moved; nothing was paid',
      set: { closedAs: 'compliance_hold' },
    });
  }
  try {
    return await settle(record, {
      to: 'PULLED',
      detail: `${formatDecimal(amount, 6)} USDC held from the home wallet`,
      ledger: movement(record, 'hold', [
        { account: 'available', amount: -amount },
        { account: 'held', amount },
      ]),
    });
  } catch (error) {
    if (!(error instanceof InsufficientFunds)) throw error;
    return settle(record, {
      to: 'FAILED',
      failure: 'insufficient_funds',
      detail: `the balance held ${formatDecimal(error.available, 6)} USDC available, less than ${formatDecimal(amount, 6)}; nothing moved`,
      set: { closedAs: 'insufficient_funds' },
    });
  }
}

async function deposit(record: OffRampRecord): Promise<OffRampStepResult> {
  const provider = offRampProvider();
  const request = depositRequest(record);
  return offRampProgress.callProvider(record, {
    call: () => provider.deposit(request),
    answered: (answer) => ({
      transition: answer.status === 'refused'
        ? {
            to: 'FAILED',
            failure: 'beneficiary_refused',
            detail: `refused by the off-ramp provider before any USDC was sent: ${answer.reason}`,
            set: { closedAs: 'beneficiary_refused' },
            ledger: movement(record, 'release', release(record)),
          }
        : { to: 'CREDITED', detail: `${formatDecimal(sentAmount(record), 6)} USDC credited at the off-ramp provider`, set: { credited: sentAmount(record).toString() } },
    }),
    // The USDC may have left: never sent blindly again.
    unanswered: {
      error: OffRampDepositUnanswered,
      askByReference: async () => ((await provider.progress(request.reference)).status === 'unknown' ? undefined : { status: 'credited' as const, providerDepositId: request.reference }),
      inDoubt: {
        to: 'IN_DOUBT',
        detail: 'the off-ramp provider did not answer the deposit; whether the USDC arrived is being reconciled',
        set: { closedAs: 'deposit_unanswered' },
      },
    },
    unavailable: {
      attempts: record.depositAttempts,
      maxAttempts: maxDepositAttempts,
      // Still DEPOSITING, one more attempt counted.
      retry: { transition: { to: 'DEPOSITING', silent: true, set: { depositAttempts: record.depositAttempts + 1 } }, outcome: 'retry', waitSeconds: depositRetrySeconds },
      gaveUp: {
        to: 'FAILED',
        failure: 'provider_unavailable',
        detail: `the off-ramp provider did not answer ${record.depositAttempts} attempts; nothing was sent`,
        set: { closedAs: 'provider_unavailable' },
        ledger: movement(record, 'release', release(record)),
      },
    },
  });
}

const followingStage: Partial<Record<OffRampStage, OffRampStage>> = { CREDITED: 'CONVERTING', CONVERTING: 'SETTLING', SETTLING: 'PAYING' };

async function follow(record: OffRampRecord): Promise<OffRampStepResult> {
  const progress = await unlessUnavailable(() => offRampProvider().progress(reference(record)));
  if (!progress) return { outcome: 'waiting', waitSeconds: 10 };
  const scale = scaleOf(record.currency)!;
  switch (progress.status) {
    case 'unknown':
      return settle(record, { to: 'IN_DOUBT', detail: 'the off-ramp provider no longer knows this deposit; being reconciled', set: { closedAs: 'provider_lost_deposit' } });
    case 'processing': {
      const next = nextPoll(payoutPoll, waitedIn(record, 'CREDITED'));
      if (next.overdue) return settle(record, { to: 'IN_DOUBT', detail: `no final answer from the off-ramp provider in ${maxSettlingDays} days`, set: { closedAs: 'provider_silent' } });
      return { outcome: 'waiting', waitSeconds: next.waitSeconds };
    }
    case 'paid':
    case 'returned': {
      const next = followingStage[record.status];
      if (next) return settle(record, { to: next, detail: stageDetail(record, next, progress) });
      if (progress.status === 'returned') return settle(record, { to: 'REFUNDING', detail: `payout returned: ${progress.reason}` });
      const paid = `${formatDecimal(progress.paid, scale)} ${record.currency} paid to the beneficiary`;
      return settle(record, {
        to: 'PAID',
        detail: progress.slippage > 0n ? `${paid}, ${formatDecimal(progress.slippage, scale)} short of the conversion` : paid,
        set: { net: progress.paid.toString(), slippage: progress.slippage.toString(), closedAs: 'paid' },
        ledger: movement(record, 'capture', capture(record)),
        event: (next) => ({ type: offRampPaidEvent, data: offRampStatusView(next) }),
      });
    }
  }
}

function stageDetail(record: OffRampRecord, stage: OffRampStage, progress: { status: string; rate?: { numerator: bigint; denominator: bigint } }): string {
  switch (stage) {
    case 'CONVERTING':
      return progress.rate
        ? `USDC→${record.currency} at ${progress.rate.numerator}/${progress.rate.denominator}`
        : `USDC→${record.currency}`;
    case 'SETTLING':
      return `${record.currency} settling at the provider`;
    default:
      return `paying by ${payoutRailOf(record.currency)?.rail ?? 'bank transfer'}`;
  }
}

/** What an off-ramp already in `stage` means for the workflow. */
export function outcomeOf(stage: OffRampStage): OffRampOutcome {
  switch (stage) {
    case 'PULLING':
      return 'pull';
    case 'PULLED':
    case 'DEPOSITING':
      return 'held';
    case 'CREDITED':
    case 'CONVERTING':
    case 'SETTLING':
    case 'PAYING':
      return 'paying';
    case 'REFUNDING':
      return 'returned';
    default:
      return 'done';
  }
}

function reference(record: OffRampRecord): string {
  return `${record.organizationId}:${record.id}`;
}

/** What leaves for the provider: the amount pulled, less our fee (the delivery fee is the provider's, inside it). */
function sentAmount(record: OffRampRecord): bigint {
  return BigInt(record.amount) - BigInt(record.fee);
}

function depositRequest(record: OffRampRecord): OffRampDepositRequest {
  const { id: _id, createdAt: _createdAt, ...beneficiary } = record.beneficiary;
  return {
    reference: reference(record),
    amount: sentAmount(record),
    sourceAmount: BigInt(record.amount),
    deliveryFee: BigInt(record.deliveryFee),
    network: record.network,
    beneficiary,
    ...(record.quotedNet !== null ? { payout: BigInt(record.quotedNet) } : {}),
  };
}

export function movement(record: OffRampRecord, leg: 'hold' | 'release' | 'capture', legs: LedgerLeg[]): LedgerMovement {
  return {
    organizationId: record.organizationId,
    entryId: `offramp:${record.id}:${leg}`,
    operation: { kind: 'offramp', id: record.id },
    legs,
    memo: `${leg} for off-ramp ${record.id}`,
  };
}

/** The hold goes back to the balance: nothing was paid, no fee is realized. */
export function release(record: OffRampRecord): LedgerLeg[] {
  const amount = BigInt(record.amount);
  return [
    { account: 'held', amount: -amount },
    { account: 'available', amount },
  ];
}

/** The hold is spent: what went to the provider (its delivery fee inside) and our fee, realized now (as payments do). */
export function capture(record: OffRampRecord): LedgerLeg[] {
  const amount = BigInt(record.amount);
  const fee = BigInt(record.fee);
  const legs: LedgerLeg[] = [
    { account: 'held', amount: -amount },
    { account: `payout:${offRampProvider().name}`, amount: amount - fee },
  ];
  if (fee > 0n) legs.push({ account: 'revenue:fees', amount: fee });
  return legs;
}
