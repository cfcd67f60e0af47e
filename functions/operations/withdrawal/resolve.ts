import type { OperationTransition } from '#store/operations.ts';
import { InvalidResolution } from '#operations/kit/errors.ts';
import { resolveParked, type OperatorResolution, type ResolutionPlan } from '#operations/kit/resolution.ts';
import { capture, release, usdc, withdrawalProgress, type WithdrawalRef } from './progress.ts';
import type { WithdrawalRecord } from './view.ts';

/** How operations settled a parked withdrawal with the custodian and the chain (docs/decisions/063). */
export const withdrawalResolutions = ['sent', 'not-sent'] as const;
export type WithdrawalResolution = (typeof withdrawalResolutions)[number];

const evmTxHash = /^0x[0-9a-fA-F]{64}$/;

/**
 * Operations settle a withdrawal parked IN_DOUBT or NEEDS_ATTENTION through the kit's one
 * resolution, with the movement of the status it reaches (withdrawal.<status> event):
 *   sent      confirmed on chain in `txHash`: SENT with the hash, the hold spent as a normal SENT
 *   not-sent  nothing left the wallet: RETURNED with the hold released, or FAILED (`not_sent`)
 *             when the record shows nothing was ever held
 */
export async function resolveWithdrawal(ref: WithdrawalRef & { as: WithdrawalResolution; note: string; txHash?: string; now?: Date }): Promise<OperatorResolution> {
  if (ref.as === 'sent' && !evmTxHash.test(ref.txHash ?? '')) {
    throw new InvalidResolution('a withdrawal resolved as sent needs the transaction hash it was confirmed in (0x and 64 hex digits)');
  }
  if (ref.as === 'not-sent' && ref.txHash !== undefined) {
    throw new InvalidResolution('a transaction hash goes only with sent');
  }
  return resolveParked(withdrawalProgress, ref, { as: ref.as, outcomes: withdrawalResolutions, note: ref.note, plan: (record, detail) => plan(record, detail, ref) });
}

function plan(record: WithdrawalRecord, detail: string, ref: { as: WithdrawalResolution; txHash?: string; now?: Date }): ResolutionPlan<OperationTransition<WithdrawalRecord>> {
  // The hold is written with HELD, in the same transaction: the timeline says whether there is one.
  const held = record.timeline.some((entry) => entry.status === 'HELD');
  if (ref.as === 'sent') {
    if (!held) return { unchanged: `withdrawal ${record.id} never held its funds, so nothing can have been sent: nothing changed` };
    const txHash = ref.txHash!.toLowerCase();
    return { transition: { to: 'SENT', detail, set: { txHash }, ledger: capture(record), now: ref.now }, done: `SENT in ${txHash}, ${usdc(record.net)} out and the fees realized` };
  }
  if (held) return { transition: { to: 'RETURNED', detail, ledger: release(record), now: ref.now }, done: `RETURNED, ${usdc(record.amount)} released to the balance` };
  return { transition: { to: 'FAILED', failure: 'not_sent', detail, now: ref.now }, done: 'FAILED, nothing was held' };
}
