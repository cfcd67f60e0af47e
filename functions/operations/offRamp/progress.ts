import { logger } from '#platform/logger.ts';
import { OperationNotFound } from '#operations/kit/errors.ts';
import { ProviderUnavailable } from '#providers/providerErrors.ts';
import { offRampProvider, type OffRampDeposit, type OffRampDepositRequest } from '#providers/offRamp.ts';
import { InsufficientFunds, type LedgerLeg, type LedgerMovement } from '#store/ledger.ts';
import { getOperation, transitionOperation, type OperationTransition } from '#store/operations.ts';
import { formatDecimal, scaleOf } from '#domain/money.ts';
import { screenOffRampPayee } from '#operations/compliance/holds.ts';
import { isOffRampEnded, offRampStatusView, type OffRampRecord } from '#operations/offRamp/view.ts';
import { payoutRailOf } from '#domain/offRampPricing.ts';
import { maxSettlingDays, pollWaitSeconds } from '#operations/payment/progress.ts';
import { operatorDetail, parkedStatuses, requireNote, type OperatorResolution } from '#operations/kit/resolution.ts';
import type { OffRampStage } from '#schemas/offramps.ts';

/**
 * The off-ramp workflow's one step (statemachines/offramp.asl.json loops on it): read the
 * off-ramp, do the one thing its stage calls for, move it on with one conditional write
 * (functions/store/operations.ts `transitionOperation`). A step delivered twice, or re-driven
 * after a crash, finds the stage already moved and does nothing twice. Money moves only with the
 * stage that explains it, in the same transaction:
 *
 *   PULLING → PULLED      hold: available → held (does not fit, or the payee is now listed: FAILED, nothing moved)
 *   PULLED → DEPOSITING   the USDC is sent to the provider (idempotent on the reference)
 *   DEPOSITING → CREDITED the provider took it; refused: FAILED, hold released; unanswered: IN_DOUBT
 *   CREDITED → CONVERTING → SETTLING → PAYING, as the provider reports the payout
 *   PAYING → PAID         capture: held → payout (the provider), fee → revenue; event offramp.paid
 *   PAYING → REFUNDING → REFUNDED   the bank returned the payout: held → available
 *
 * Outcomes: `continue` (run the step again at once), `wait` (after `waitSeconds`), `done`.
 */
export type OffRampOutcome = 'continue' | 'wait' | 'done';

export interface OffRampStepResult {
  outcome: OffRampOutcome;
  waitSeconds?: number;
}

export interface OffRampRef {
  organizationId: string;
  offRampId: string;
}

/** After this many unavailable answers to the deposit the off-ramp fails, its hold released (nothing was sent). */
export const maxDepositAttempts = 5;
export const depositRetrySeconds = 30;

export const offRampPaidEvent = 'offramp.paid';

export async function advanceOffRamp(ref: OffRampRef): Promise<OffRampStepResult> {
  const record = await load(ref);
  switch (record.status) {
    case 'PULLING':
      return pull(record);
    case 'PULLED':
      return move(record, {
        to: 'DEPOSITING',
        detail: `sending ${formatDecimal(sentAmount(record), 6)} USDC to the off-ramp provider on ${record.network}`,
        set: { depositAttempts: record.depositAttempts + 1 },
      });
    case 'DEPOSITING':
      return deposit(record);
    case 'CREDITED':
    case 'CONVERTING':
    case 'SETTLING':
    case 'PAYING':
      return follow(record);
    case 'REFUNDING':
      return move(record, {
        to: 'REFUNDED',
        detail: `${formatDecimal(BigInt(record.amount), 6)} USDC returned to the balance`,
        set: { closedAs: 'returned' },
        ledger: movement(record, 'release', release(record)),
      });
    default:
      return { outcome: 'done' };
  }
}

/** Anything the workflow did not expect: park the off-ramp IN_DOUBT for a person, money where it is, never guessed. */
export async function parkOffRamp(ref: OffRampRef & { error?: unknown }): Promise<OffRampStepResult> {
  const record = await load(ref);
  if (isOffRampEnded(record.status)) return { outcome: 'done' };
  logger.error('off-ramp parked after an unexpected workflow error', { offRampId: record.id, stage: record.status, error: ref.error });
  return move(record, { to: 'IN_DOUBT', detail: `stopped in ${record.status} by an internal error; operations will finish it`, set: { closedAs: 'internal_error' } });
}

async function pull(record: OffRampRecord): Promise<OffRampStepResult> {
  const amount = BigInt(record.amount);
  // The screening list may have changed since acceptance: the payee is screened again before any USDC moves (decision 078).
  const held = await screenOffRampPayee({ organizationId: record.organizationId, offRampId: record.id, requestHash: record.requestHash, beneficiary: record.beneficiary, now: new Date() });
  if (held) {
    return move(record, {
      to: 'FAILED',
      failure: 'compliance_hold',
      detail: 'held for compliance review before any USDC moved; nothing was paid',
      set: { closedAs: 'compliance_hold' },
    });
  }
  try {
    return await move(record, {
      to: 'PULLED',
      detail: `${formatDecimal(amount, 6)} USDC held from the home wallet`,
      ledger: movement(record, 'hold', [
        { account: 'available', amount: -amount },
        { account: 'held', amount },
      ]),
    });
  } catch (error) {
    if (!(error instanceof InsufficientFunds)) throw error;
    return move(record, {
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
  let answer: OffRampDeposit;
  try {
    answer = await provider.deposit(request);
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ProviderUnavailable') {
      if (record.depositAttempts >= maxDepositAttempts) {
        return move(record, {
          to: 'FAILED',
          failure: 'provider_unavailable',
          detail: `the off-ramp provider did not answer ${record.depositAttempts} attempts; nothing was sent`,
          set: { closedAs: 'provider_unavailable' },
          ledger: movement(record, 'release', release(record)),
        });
      }
      const counted = await transitionOperation(record, { to: 'DEPOSITING', silent: true, set: { depositAttempts: record.depositAttempts + 1 } });
      return counted ? { outcome: 'wait', waitSeconds: depositRetrySeconds } : outcomeOf(await load(record));
    }
    if (name !== 'OffRampDepositUnanswered') throw error;
    // The USDC may have left. Ask once by reference; never send blindly again.
    const known = await provider.progress(request.reference).catch(() => ({ status: 'unknown' as const }));
    if (known.status === 'unknown') {
      return move(record, {
        to: 'IN_DOUBT',
        detail: 'the off-ramp provider did not answer the deposit; whether the USDC arrived is being reconciled',
        set: { closedAs: 'deposit_unanswered' },
      });
    }
    answer = { status: 'credited', providerDepositId: request.reference };
  }
  if (answer.status === 'refused') {
    return move(record, {
      to: 'FAILED',
      failure: 'beneficiary_refused',
      detail: `refused by the off-ramp provider before any USDC was sent: ${answer.reason}`,
      set: { closedAs: 'beneficiary_refused' },
      ledger: movement(record, 'release', release(record)),
    });
  }
  return move(record, {
    to: 'CREDITED',
    detail: `${formatDecimal(sentAmount(record), 6)} USDC credited at the off-ramp provider`,
    set: { credited: sentAmount(record).toString() },
  });
}

const followingStage: Partial<Record<OffRampStage, OffRampStage>> = { CREDITED: 'CONVERTING', CONVERTING: 'SETTLING', SETTLING: 'PAYING' };

async function follow(record: OffRampRecord): Promise<OffRampStepResult> {
  let progress;
  try {
    progress = await offRampProvider().progress(reference(record));
  } catch (error) {
    if (error instanceof ProviderUnavailable) return { outcome: 'wait', waitSeconds: 10 };
    throw error;
  }
  const scale = scaleOf(record.currency)!;
  switch (progress.status) {
    case 'unknown':
      return move(record, { to: 'IN_DOUBT', detail: 'the off-ramp provider no longer knows this deposit; being reconciled', set: { closedAs: 'provider_lost_deposit' } });
    case 'processing': {
      const since = [...record.timeline].reverse().find((entry) => entry.status === 'CREDITED')?.at ?? record.updatedAt;
      const waitingMs = Date.now() - Date.parse(since);
      if (waitingMs > maxSettlingDays * 86_400_000) {
        return move(record, { to: 'IN_DOUBT', detail: `no final answer from the off-ramp provider in ${maxSettlingDays} days`, set: { closedAs: 'provider_silent' } });
      }
      return { outcome: 'wait', waitSeconds: pollWaitSeconds(waitingMs) };
    }
    case 'paid':
    case 'returned': {
      const next = followingStage[record.status];
      if (next) return move(record, { to: next, detail: stageDetail(record, next, progress) });
      if (progress.status === 'returned') return move(record, { to: 'REFUNDING', detail: `payout returned: ${progress.reason}` });
      const paid = `${formatDecimal(progress.paid, scale)} ${record.currency} paid to the beneficiary`;
      return move(record, {
        to: 'PAID',
        detail: progress.slippage > 0n ? `${paid}, ${formatDecimal(progress.slippage, scale)} short of the conversion` : paid,
        set: { net: progress.paid.toString(), slippage: progress.slippage.toString(), closedAs: 'paid' },
        ledger: movement(record, 'capture', capture(record)),
        event: (next) => ({ type: offRampPaidEvent, data: offRampStatusView(next) }),
      });
    }
  }
}

export type OffRampResolution = { as: 'paid' | 'refunded'; note: string };

/**
 * An off-ramp parked IN_DOUBT, after operations reconciled with the provider: `paid` (PAID, the
 * same capture, closedAs and offramp.paid as the workflow's payout) or `refunded` (the USDC came
 * back: REFUNDED, hold released, as the workflow's return). One conditional move: a second
 * resolution, or one of an off-ramp not parked, changes nothing and says why. An off-ramp parked
 * before its hold (PULLING) has nothing held to capture or release: refused, nothing changes.
 */
export async function resolveOffRamp(ref: OffRampRef, resolution: OffRampResolution): Promise<OperatorResolution> {
  const record = await load(ref);
  const note = requireNote(resolution.note);
  const unchanged = (detail: string): OperatorResolution => ({ resolved: false, status: record.status, detail });
  if (!parkedStatuses.includes(record.status)) return unchanged(`off-ramp ${record.id} is ${record.status}, not parked: nothing changed`);
  if (!record.timeline.some((entry) => entry.status === 'PULLED')) {
    return unchanged(`off-ramp ${record.id} was parked before its USDC was held: nothing to capture or release; nothing changed`);
  }
  const transition: OperationTransition<OffRampRecord> =
    resolution.as === 'paid'
      ? {
          to: 'PAID',
          detail: operatorDetail(note),
          set: { closedAs: 'paid' },
          ledger: movement(record, 'capture', capture(record)),
          event: (next) => ({ type: offRampPaidEvent, data: offRampStatusView(next) }),
        }
      : { to: 'REFUNDED', detail: operatorDetail(note), set: { closedAs: 'returned' }, ledger: movement(record, 'release', release(record)) };
  const moved = await transitionOperation(record, transition);
  if (!moved) {
    const now = await load(record);
    return { resolved: false, status: now.status, detail: `off-ramp ${record.id} moved to ${now.status} meanwhile: nothing changed` };
  }
  const amount = `${formatDecimal(BigInt(record.amount), 6)} USDC`;
  const done =
    resolution.as === 'paid'
      ? `hold of ${amount} captured, fee of ${formatDecimal(BigInt(record.fee), 6)} USDC realized`
      : `${amount} released to the balance`;
  return { resolved: true, status: moved.status, detail: `${record.status} → ${moved.status}, ${done}` };
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

/**
 * One conditional move. When the stage had already moved (another delivery won), nothing is
 * written and the outcome of the stage it is in now is answered.
 */
async function move(record: OffRampRecord, transition: OperationTransition<OffRampRecord>): Promise<OffRampStepResult> {
  const next = await transitionOperation(record, transition);
  return outcomeOf(next ?? (await load(record)));
}

function outcomeOf(record: OffRampRecord): OffRampStepResult {
  return { outcome: isOffRampEnded(record.status) ? 'done' : 'continue' };
}

async function load(ref: OffRampRef | OffRampRecord): Promise<OffRampRecord> {
  const organizationId = ref.organizationId;
  const id = 'offRampId' in ref ? ref.offRampId : ref.id;
  const record = await getOperation<OffRampRecord>(organizationId, 'offramp', id);
  if (!record) throw new OperationNotFound('off-ramp', id);
  return record;
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

function movement(record: OffRampRecord, leg: 'hold' | 'release' | 'capture', legs: LedgerLeg[]): LedgerMovement {
  return {
    organizationId: record.organizationId,
    entryId: `offramp:${record.id}:${leg}`,
    operation: { kind: 'offramp', id: record.id },
    legs,
    memo: `${leg} for off-ramp ${record.id}`,
  };
}

/** The hold goes back to the balance: nothing was paid, no fee is realized. */
function release(record: OffRampRecord): LedgerLeg[] {
  const amount = BigInt(record.amount);
  return [
    { account: 'held', amount: -amount },
    { account: 'available', amount },
  ];
}

/** The hold is spent: what went to the provider (its delivery fee inside) and our fee, realized now (as payments do). */
function capture(record: OffRampRecord): LedgerLeg[] {
  const amount = BigInt(record.amount);
  const fee = BigInt(record.fee);
  const legs: LedgerLeg[] = [
    { account: 'held', amount: -amount },
    { account: `payout:${offRampProvider().name}`, amount: amount - fee },
  ];
  if (fee > 0n) legs.push({ account: 'revenue:fees', amount: fee });
  return legs;
}
