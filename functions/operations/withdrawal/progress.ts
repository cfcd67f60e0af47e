import type { StepResult as KitStepResult, OperationRef } from '#operations/kit/progress.ts';
import { storedOperationProgress } from '#operations/kit/storedOperation.ts';
import { unlessUnavailable } from '#operations/kit/providerCall.ts';
import { backoffSeconds, nextPoll, waitedIn, type PollPolicy } from '#operations/kit/poll.ts';
import { ChainSendUnanswered, chainSender, type ChainSendRequest } from '#providers/chain.ts';
import { InsufficientFunds, type LedgerLeg, type LedgerMovement } from '#store/ledger.ts';
import type { WithdrawalState } from '#schemas/withdrawals.ts';
import { screenWithdrawalDestination } from '#operations/compliance/holds.ts';
import { formatDecimal } from '#domain/money.ts';
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

export type StepResult = KitStepResult<WithdrawalOutcome>;

export type WithdrawalRef = OperationRef<'withdrawalId'>;

/** After this many unavailable answers the withdrawal fails, its hold released (nothing was ever sent). */
export const maxSendAttempts = 5;
/** Seconds before sending again after the custodian was unavailable. */
export const retryWaitSeconds = 10;
/** A send unconfirmed this long is handed to a person, funds held. */
export const maxPendingDays = 3;
/** Polling the send (the kit's poll) backs off with its age: 5 s to 10 min. */
export const confirmationPoll: PollPolicy = { leastSeconds: 5, mostSeconds: 600, maxAgeDays: maxPendingDays };

/** The kit's step shape over the withdrawal's operation items (functions/store/operations.ts). */
export const withdrawalProgress = storedOperationProgress<WithdrawalRef, WithdrawalRecord, WithdrawalOutcome>({
  workflow: 'withdrawal',
  kind: 'withdrawal',
  outcomeOf: (record) => outcomeOf(record.status),
  // Every move carries the event of the status it reaches, when that status ends the withdrawal or needs a person.
  eventOf,
});

const { from, load, move, settle } = withdrawalProgress;

export const confirmationWaitSeconds = (pendingForMs: number) => backoffSeconds(confirmationPoll, pendingForMs);

/**
 * INITIATED → PULLING → HELD with the hold (available → held); FAILED `insufficient_funds` when it
 * does not fit, FAILED `compliance_hold` when the destination was blocked since acceptance.
 */
export async function pullFunds(ref: WithdrawalRef): Promise<StepResult> {
  let record = await load(ref);
  if (record.status === 'INITIATED') {
    record = await move(record, { to: 'PULLING', detail: `holding ${usdc(record.amount)} from the balance` });
  }
  if (record.status !== 'PULLING') return { outcome: outcomeOf(record.status) };
  // The blocked list may have changed since acceptance: screened again before any USDC moves (decision 078).
  const blocked = await screenWithdrawalDestination({
    organizationId: record.organizationId, withdrawalId: record.id, requestHash: record.requestHash, toAddress: record.toAddress, network: record.network, now: new Date(),
  });
  if (blocked) {
    return settle(record, { to: 'FAILED', failure: 'compliance_hold', detail: 'held for compliance review before any USDC moved; nothing was sent' });
  }
  try {
    return await settle(record, { to: 'HELD', detail: `${usdc(record.amount)} held`, ledger: hold(record) });
  } catch (error) {
    if (!(error instanceof InsufficientFunds)) throw error;
    return settle(record, {
      to: 'FAILED',
      failure: 'insufficient_funds',
      detail: `the balance holds ${usdc(error.available)}, less than ${usdc(record.amount)}; nothing moved`,
    });
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
  // Re-sent only from SENDING with no transfer recorded: the custodian answers its first transfer for the reference.
  return withdrawalProgress.callProvider(record, {
    call: () => sender.send(request),
    answered: (submission) =>
      submission.status === 'refused'
        ? { transition: { to: 'FAILED', failure: 'destination_refused', detail: `refused by the custodian before any USDC moved: ${submission.reason}`, ledger: release(record) } }
        : { transition: { to: 'SENDING', silent: true, set: { transferId: submission.transferId } }, waitSeconds: 0 },
    // It may have been broadcast: never sent blindly again.
    unanswered: {
      error: ChainSendUnanswered,
      askByReference: async () => ((await sender.sendStatus(request.reference)).status === 'unknown' ? undefined : { status: 'accepted' as const, transferId: request.reference }),
      inDoubt: { to: 'IN_DOUBT', detail: 'the custodian did not answer the send; whether it was broadcast is being reconciled. It will not be sent again.' },
    },
    unavailable: {
      attempts: record.sendAttempts,
      maxAttempts: maxSendAttempts,
      retry: { transition: { to: 'PENDING_RETRY', detail: `custodian unavailable (send ${record.sendAttempts} of ${maxSendAttempts}); retrying` }, waitSeconds: retryWaitSeconds },
      gaveUp: {
        to: 'FAILED',
        failure: 'custodian_unavailable',
        detail: `the custodian did not answer ${record.sendAttempts} sends; nothing was sent, the hold is released`,
        ledger: release(record),
      },
    },
  });
}

/** SENDING: is the transfer confirmed on chain? SENT with its hash, RETURNING, NEEDS_ATTENTION or IN_DOUBT. */
export async function pollWithdrawal(ref: WithdrawalRef): Promise<StepResult> {
  return from(ref, ['SENDING'], (record) => confirm(record));
}

async function confirm(record: WithdrawalRecord): Promise<StepResult> {
  // Not accepted as far as we recorded (a crash right after SENDING): send, which the custodian dedupes.
  if (!record.transferId) return { outcome: 'held' };
  const report = await unlessUnavailable(() => chainSender().sendStatus(sendReference(record)));
  if (!report) return { outcome: 'sending', waitSeconds: confirmationWaitSeconds(0) };
  switch (report.status) {
    case 'pending': {
      const next = nextPoll(confirmationPoll, waitedIn(record, 'SENDING'));
      if (next.overdue) return settle(record, { to: 'NEEDS_ATTENTION', detail: `not confirmed on chain in ${maxPendingDays} days; funds held for operations` });
      return { outcome: 'sending', waitSeconds: next.waitSeconds };
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
  return from(ref, ['RETURNING'], (record) => settle(record, { to: 'RETURNED', detail: `${usdc(record.amount)} returned to the balance`, ledger: release(record) }));
}

/**
 * Anything the workflow did not expect: before the hold, FAILED (nothing moved); after it,
 * NEEDS_ATTENTION with the funds held, never guessed (a send may have gone out).
 */
export async function parkWithdrawal(ref: WithdrawalRef & { error?: unknown }): Promise<StepResult> {
  return withdrawalProgress.park(ref, ['INITIATED', 'PULLING', 'HELD', 'CROSSING', 'SENDING', 'PENDING_RETRY', 'RETURNING'], (record) =>
    record.status === 'INITIATED' || record.status === 'PULLING'
      ? { to: 'FAILED', failure: 'internal_error', detail: `stopped in ${record.status} by an internal error before any USDC moved` }
      : { to: 'NEEDS_ATTENTION', detail: `stopped in ${record.status} by an internal error; funds held, operations will finish it` },
  );
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
export function release(record: WithdrawalRecord): LedgerMovement {
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
export function capture(record: WithdrawalRecord): LedgerMovement {
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

export function usdc(minor: string | bigint): string {
  return `${formatDecimal(BigInt(minor), 6)} ${withdrawalCurrency}`;
}

