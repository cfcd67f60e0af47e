import { logger } from '#platform/logger.ts';
import { OperationNotFound } from '#operations/kit/errors.ts';
import { chainSender, type ChainSendRequest, type ChainSendSubmission } from '#providers/chain.ts';
import { InsufficientFunds, type LedgerLeg, type LedgerMovement } from '#store/ledger.ts';
import { getOperation, transitionOperation, type OperationTransition } from '#store/operations.ts';
import type { WithdrawalState } from '#schemas/withdrawals.ts';
import { screenWithdrawalDestination } from '#operations/compliance/holds.ts';
import { formatDecimal } from '#domain/money.ts';
import { InvalidResolution, operatorDetail, parkedStatuses, requireNote, type OperatorResolution } from '#operations/kit/resolution.ts';
import {
  sendReference, withdrawalCurrency, withdrawalNeedsPersonStates, withdrawalStatusView, withdrawalTerminalStates, type WithdrawalRecord,
} from '#operations/withdrawal/view.ts';

/**
 * The steps of the withdrawal workflow (statemachines/withdrawal.asl.json), one per Task state.
 * Each reads the withdrawal, acts only from the status it expects, and moves it on with one
 * conditional write (functions/store/operations.ts); a step delivered twice, or re-driven after
 * a crash, finds the status already moved and answers the outcome that status means. Money
 * moves only with the status that explains it: the hold with HELD, the release with FAILED or
 * RETURNED, the send (net out, fees to their accounts) with SENT.
 *
 * The send is the one call that cannot be undone. It is made only from SENDING, the custodian
 * is idempotent on the withdrawal's reference (a repeat after a crash answers the transfer it
 * made), and a send that went unanswered parks the withdrawal IN_DOUBT: never sent again.
 *
 * Outcomes drive the workflow's one Choice state:
 *   pull       not yet held: place the hold
 *   held       funds held: cross and send
 *   retry      the custodian was unavailable and nothing was sent: wait, send again
 *   sending    the custodian accepted the send: wait, ask whether it is confirmed
 *   returning  cancelled: release the hold
 *   done       SENT, FAILED, RETURNED, or a person's turn; the workflow ends
 */
export type WithdrawalOutcome = 'pull' | 'held' | 'retry' | 'sending' | 'returning' | 'done';

export interface StepResult {
  outcome: WithdrawalOutcome;
  waitSeconds?: number;
}

export interface WithdrawalRef {
  organizationId: string;
  withdrawalId: string;
}

/** After this many unavailable answers the withdrawal fails, its hold released (nothing was ever sent). */
export const maxSendAttempts = 5;
/** Seconds before sending again after the custodian was unavailable. */
export const retryWaitSeconds = 10;
/** A send unconfirmed this long is handed to a person, funds held. */
export const maxPendingDays = 3;

/** Polling backs off with the send's age (a tenth of it, 5 s to 10 min). */
export function confirmationWaitSeconds(pendingForMs: number): number {
  return Math.min(600, Math.max(5, Math.floor(pendingForMs / 10_000)));
}

/**
 * INITIATED → PULLING → HELD with the hold (available → held); FAILED `insufficient_funds` when it
 * does not fit, FAILED `compliance_hold` when the destination was blocked since acceptance.
 */
export async function pullFunds(ref: WithdrawalRef): Promise<StepResult> {
  let record = await load(ref);
  if (record.status === 'INITIATED') {
    record = (await transitionOperation(record, { to: 'PULLING', detail: `holding ${usdc(record.amount)} from the balance` })) ?? (await load(ref));
  }
  if (record.status !== 'PULLING') return { outcome: outcomeOf(record.status) };
  // The blocked list may have changed since acceptance: screened again before any USDC moves (decision 078).
  const blocked = await screenWithdrawalDestination({
    organizationId: record.organizationId, withdrawalId: record.id, requestHash: record.requestHash, toAddress: record.toAddress, network: record.network, now: new Date(),
  });
  if (blocked) {
    const failed = await move(record, { to: 'FAILED', failure: 'compliance_hold', detail: 'held for compliance review before any USDC moved; nothing was sent' });
    return { outcome: outcomeOf(failed.status) };
  }
  try {
    const held = await move(record, { to: 'HELD', detail: `${usdc(record.amount)} held`, ledger: hold(record) });
    return { outcome: outcomeOf(held.status) };
  } catch (error) {
    if (!(error instanceof InsufficientFunds)) throw error;
    const failed = await move(record, {
      to: 'FAILED',
      failure: 'insufficient_funds',
      detail: `the balance holds ${usdc(error.available)}, less than ${usdc(record.amount)}; nothing moved`,
    });
    return { outcome: outcomeOf(failed.status) };
  }
}

/** HELD → CROSSING (off the home network) → SENDING, then the send. */
export async function sendWithdrawal(ref: WithdrawalRef): Promise<StepResult> {
  let record = await load(ref);
  if (record.status === 'HELD' && record.network !== record.homeNetwork) {
    record = await move(record, { to: 'CROSSING', detail: `moving ${usdc(record.amount)} from ${record.homeNetwork} to ${record.network}` });
  }
  if (record.status === 'HELD' || record.status === 'CROSSING' || record.status === 'PENDING_RETRY') {
    record = await move(record, {
      to: 'SENDING',
      detail: `sending ${usdc(record.net)} to ${record.toAddress} on ${record.network}`,
      set: { sendAttempts: record.sendAttempts + 1 },
    });
  }
  if (record.status !== 'SENDING') return { outcome: outcomeOf(record.status) };
  // Accepted before (a repeated delivery, or a re-drive): follow it, never send again.
  if (record.transferId) return { outcome: 'sending', waitSeconds: 0 };

  const sender = chainSender();
  const request = sendRequest(record);
  let submission: ChainSendSubmission;
  try {
    // Re-sent only from SENDING with no transfer recorded: the custodian answers its first transfer for the reference.
    submission = await sender.send(request);
  } catch (error) {
    const name = (error as Error).name;
    if (name === 'ProviderUnavailable') {
      if (record.sendAttempts >= maxSendAttempts) {
        return settle(record, {
          to: 'FAILED',
          failure: 'custodian_unavailable',
          detail: `the custodian did not answer ${record.sendAttempts} sends; nothing was sent, the hold is released`,
          ledger: release(record),
        });
      }
      const next = await settle(record, { to: 'PENDING_RETRY', detail: `custodian unavailable (send ${record.sendAttempts} of ${maxSendAttempts}); retrying` });
      return { ...next, waitSeconds: retryWaitSeconds };
    }
    if (name !== 'ChainSendUnanswered') throw error;
    // It may have been broadcast. Ask once by reference; never send blindly again.
    const known = await sender.sendStatus(request.reference).catch(() => ({ status: 'unknown' as const }));
    if (known.status === 'unknown') {
      return settle(record, { to: 'IN_DOUBT', detail: 'the custodian did not answer the send; whether it was broadcast is being reconciled. It will not be sent again.' });
    }
    submission = { status: 'accepted', transferId: request.reference };
  }
  if (submission.status === 'refused') {
    return settle(record, {
      to: 'FAILED',
      failure: 'destination_refused',
      detail: `refused by the custodian before any USDC moved: ${submission.reason}`,
      ledger: release(record),
    });
  }
  const accepted = await transitionOperation(record, { to: 'SENDING', silent: true, set: { transferId: submission.transferId } });
  return { outcome: outcomeOf((accepted ?? (await load(ref))).status), waitSeconds: 0 };
}

/** SENDING: is the transfer confirmed on chain? SENT with its hash, RETURNING, NEEDS_ATTENTION or IN_DOUBT. */
export async function pollWithdrawal(ref: WithdrawalRef): Promise<StepResult> {
  const record = await load(ref);
  if (record.status !== 'SENDING') return { outcome: outcomeOf(record.status) };
  // Not accepted as far as we recorded (a crash right after SENDING): send, which the custodian dedupes.
  if (!record.transferId) return { outcome: 'held' };
  let report;
  try {
    report = await chainSender().sendStatus(sendReference(record));
  } catch (error) {
    if ((error as Error).name === 'ProviderUnavailable') return { outcome: 'sending', waitSeconds: confirmationWaitSeconds(0) };
    throw error;
  }
  switch (report.status) {
    case 'pending': {
      const since = [...record.timeline].reverse().find((entry) => entry.status === 'SENDING')?.at ?? record.updatedAt;
      const pendingForMs = Date.now() - Date.parse(since);
      if (pendingForMs > maxPendingDays * 86_400_000) {
        return settle(record, { to: 'NEEDS_ATTENTION', detail: `not confirmed on chain in ${maxPendingDays} days; funds held for operations` });
      }
      return { outcome: 'sending', waitSeconds: confirmationWaitSeconds(pendingForMs) };
    }
    case 'confirmed':
      return settle(record, {
        to: 'SENT',
        detail: `${usdc(record.net)} confirmed on ${record.network} in ${report.txHash}`,
        set: { txHash: report.txHash },
        ledger: capture(record),
      });
    case 'cancelled':
      return settle(record, { to: 'RETURNING', detail: `${report.reason}; ${usdc(record.amount)} going back to the balance` });
    case 'review':
      return settle(record, { to: 'NEEDS_ATTENTION', detail: `${report.reason}; funds held` });
    case 'unknown':
      return settle(record, { to: 'IN_DOUBT', detail: 'the custodian no longer knows this transfer; being reconciled. It will not be sent again.' });
  }
}

/** RETURNING → RETURNED with the hold released. */
export async function returnWithdrawal(ref: WithdrawalRef): Promise<StepResult> {
  const record = await load(ref);
  if (record.status !== 'RETURNING') return { outcome: outcomeOf(record.status) };
  return settle(record, { to: 'RETURNED', detail: `${usdc(record.amount)} returned to the balance`, ledger: release(record) });
}

/**
 * Anything the workflow did not expect: before the hold, FAILED (nothing moved); after it,
 * NEEDS_ATTENTION with the funds held, never guessed (a send may have gone out).
 */
export async function parkWithdrawal(ref: WithdrawalRef & { error?: unknown }): Promise<StepResult> {
  const record = await load(ref);
  logger.error('withdrawal stopped by an unexpected workflow error', { withdrawalId: record.id, status: record.status, error: ref.error });
  if (record.status === 'INITIATED' || record.status === 'PULLING') {
    return settle(record, { to: 'FAILED', failure: 'internal_error', detail: `stopped in ${record.status} by an internal error before any USDC moved` });
  }
  if (!['HELD', 'CROSSING', 'SENDING', 'PENDING_RETRY', 'RETURNING'].includes(record.status)) return { outcome: outcomeOf(record.status) };
  return settle(record, { to: 'NEEDS_ATTENTION', detail: `stopped in ${record.status} by an internal error; funds held, operations will finish it` });
}

/** How operations settled a parked withdrawal with the custodian and the chain (docs/decisions/063). */
export const withdrawalResolutions = ['sent', 'not-sent'] as const;
export type WithdrawalResolution = (typeof withdrawalResolutions)[number];

const evmTxHash = /^0x[0-9a-fA-F]{64}$/;

/**
 * Operations settle a withdrawal parked IN_DOUBT or NEEDS_ATTENTION: one conditional transition
 * from the parked status, with the movement of the status it reaches (withdrawal.<status> event):
 *   sent      confirmed on chain in `txHash`: SENT with the hash, the hold spent as a normal SENT
 *   not-sent  nothing left the wallet: RETURNED with the hold released, or FAILED (`not_sent`)
 *             when the record shows nothing was ever held
 * Anything else (already resolved, never parked, resolved meanwhile) writes nothing and answers why.
 */
export async function resolveWithdrawal(ref: WithdrawalRef & { as: WithdrawalResolution; note: string; txHash?: string; now?: Date }): Promise<OperatorResolution> {
  if (!withdrawalResolutions.includes(ref.as)) {
    throw new InvalidResolution(`a withdrawal resolves as ${withdrawalResolutions.join(' or ')}`);
  }
  if (ref.as === 'sent' && !evmTxHash.test(ref.txHash ?? '')) {
    throw new InvalidResolution('a withdrawal resolved as sent needs the transaction hash it was confirmed in (0x and 64 hex digits)');
  }
  if (ref.as === 'not-sent' && ref.txHash !== undefined) {
    throw new InvalidResolution('a transaction hash goes only with sent');
  }
  const detail = operatorDetail(requireNote(ref.note));
  const record = await load(ref);
  if (!parkedStatuses.includes(record.status)) {
    return { resolved: false, status: record.status, detail: `withdrawal ${record.id} is ${record.status}, not IN_DOUBT or NEEDS_ATTENTION: nothing changed` };
  }
  // The hold is written with HELD, in the same transaction: the timeline says whether there is one.
  const held = record.timeline.some((entry) => entry.status === 'HELD');
  let transition: OperationTransition<WithdrawalRecord>;
  let done: string;
  if (ref.as === 'sent') {
    if (!held) return { resolved: false, status: record.status, detail: `withdrawal ${record.id} never held its funds, so nothing can have been sent: nothing changed` };
    const txHash = ref.txHash!.toLowerCase();
    transition = { to: 'SENT', detail, set: { txHash }, ledger: capture(record) };
    done = `SENT in ${txHash}, ${usdc(record.net)} out and the fees realized`;
  } else if (held) {
    transition = { to: 'RETURNED', detail, ledger: release(record) };
    done = `RETURNED, ${usdc(record.amount)} released to the balance`;
  } else {
    transition = { to: 'FAILED', failure: 'not_sent', detail };
    done = 'FAILED, nothing was held';
  }
  const next = await transitionOperation(record, { ...transition, now: ref.now, event: (after) => eventOf(after) });
  if (!next) {
    const now = await load(ref);
    return { resolved: false, status: now.status, detail: `withdrawal ${record.id} moved from ${record.status} to ${now.status} meanwhile: nothing changed` };
  }
  return { resolved: true, status: next.status, detail: `${record.status} → ${done}` };
}

/** What a withdrawal already in `status` means for the workflow. */
export function outcomeOf(status: WithdrawalState): WithdrawalOutcome {
  switch (status) {
    case 'INITIATED':
    case 'PULLING':
      return 'pull';
    case 'HELD':
    case 'CROSSING':
      return 'held';
    case 'PENDING_RETRY':
      return 'retry';
    case 'SENDING':
      return 'sending';
    case 'RETURNING':
      return 'returning';
    default:
      return 'done';
  }
}

async function load(ref: WithdrawalRef): Promise<WithdrawalRecord> {
  const record = await getOperation<WithdrawalRecord>(ref.organizationId, 'withdrawal', ref.withdrawalId);
  if (!record) throw new OperationNotFound('withdrawal', ref.withdrawalId);
  return record;
}

/** One conditional move with its event when it ends somewhere; the record as it now is (reloaded when another delivery moved it first). */
async function move(record: WithdrawalRecord, transition: OperationTransition<WithdrawalRecord>): Promise<WithdrawalRecord> {
  const next = await transitionOperation(record, { ...transition, event: (after) => eventOf(after) });
  return next ?? load({ organizationId: record.organizationId, withdrawalId: record.id });
}

async function settle(record: WithdrawalRecord, transition: OperationTransition<WithdrawalRecord>): Promise<StepResult> {
  return { outcome: outcomeOf((await move(record, transition)).status) };
}

/** An event when the withdrawal ends or needs a person: `data` is what GET /treasury/withdrawals/:id answers. */
function eventOf(record: WithdrawalRecord) {
  const ended = withdrawalTerminalStates.includes(record.status) || withdrawalNeedsPersonStates.includes(record.status);
  return ended ? { type: `withdrawal.${record.status.toLowerCase()}`, data: withdrawalStatusView(record) } : undefined;
}

function movement(record: WithdrawalRecord, step: string, legs: LedgerLeg[]): LedgerMovement {
  return {
    organizationId: record.organizationId,
    entryId: `withdrawal:${record.id}:${step}`,
    operation: { kind: 'withdrawal', id: record.id },
    legs,
    memo: `${step} withdrawal ${record.id}`,
  };
}

function hold(record: WithdrawalRecord): LedgerMovement {
  const amount = BigInt(record.amount);
  return movement(record, 'hold', [
    { account: 'available', amount: -amount },
    { account: 'held', amount },
  ]);
}

/** Nothing was sent: the hold goes back, no fee is realized. */
function release(record: WithdrawalRecord): LedgerMovement {
  const amount = BigInt(record.amount);
  return movement(record, 'release', [
    { account: 'held', amount: -amount },
    { account: 'available', amount },
  ]);
}

/**
 * The hold is spent: the net to the chain, the crossing to `expense:network-fees` (where payments
 * book theirs) and the gas with its headroom to `expense:gas:<network>` (docs/decisions/060).
 */
function capture(record: WithdrawalRecord): LedgerMovement {
  const legs: LedgerLeg[] = [
    { account: 'held', amount: -BigInt(record.amount) },
    { account: `external:chain:${record.network}`, amount: BigInt(record.net) },
    { account: `expense:gas:${record.network}`, amount: BigInt(record.gasFee) },
  ];
  if (BigInt(record.crossingFee) > 0n) legs.push({ account: 'expense:network-fees', amount: BigInt(record.crossingFee) });
  return movement(record, 'send', legs);
}

function sendRequest(record: WithdrawalRecord): ChainSendRequest {
  return {
    reference: sendReference(record),
    fromNetwork: record.homeNetwork,
    network: record.network,
    toAddress: record.toAddress,
    amount: BigInt(record.net),
    withdrawn: BigInt(record.amount),
  };
}

function usdc(minor: string | bigint): string {
  return `${formatDecimal(BigInt(minor), 6)} ${withdrawalCurrency}`;
}

