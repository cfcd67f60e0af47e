import { chainSender } from '#providers/chain.ts';
import type { LedgerMovement } from '#store/ledger.ts';
import { formatDecimal } from '#domain/money.ts';
import type { StepResult, OperationRef } from '#operations/kit/progress.ts';
import { storedOperationProgress } from '#operations/kit/storedOperation.ts';
import { chainDepositCurrency as currency, chainDepositView, type ChainDepositRecord } from './view.ts';

/**
 * The steps of the chainDeposit workflow (statemachines/chain-deposit.asl.json): move a deposit
 * that arrived on another network home, then credit it (settling → available less the move fee).
 * Each acts only from the status it expects (the kit's progress shape), so a repeat is harmless.
 *
 * Outcomes: moving  the move is under way: wait, ask again
 *           arrived it is home: credit it
 *           done    CREDITED, or a person's turn
 */
export type ChainDepositOutcome = 'moving' | 'arrived' | 'done';

export type ChainDepositRef = OperationRef<'depositId'>;

export const chainDepositProgress = storedOperationProgress<ChainDepositRef, ChainDepositRecord, ChainDepositOutcome>({
  workflow: 'chainDeposit',
  kind: 'chainDeposit',
  outcomeOf: (record) => (record.status === 'SETTLING' || record.status === 'MOVING' ? 'moving' : 'done'),
  // CREDITED and NEEDS_ATTENTION carry their event (what GET answers); the steps between are silent.
  eventOf: (after) => (after.status === 'CREDITED' || after.status === 'NEEDS_ATTENTION' ? { type: `chain_deposit.${after.status.toLowerCase()}`, data: chainDepositView(after) } : undefined),
});

const { from, move, settle, outcomeOf } = chainDepositProgress;

/** SETTLING → MOVING (the custodian asked to move it home, idempotent on the deposit), then whether it has arrived. */
export async function moveDepositHome(ref: ChainDepositRef): Promise<StepResult<ChainDepositOutcome>> {
  return from(ref, ['SETTLING', 'MOVING'], moveHome);
}

/** MOVING → CREDITED: settling → available less the move fee, the fee to `expense:network-fees`. */
export async function creditDepositHome(ref: ChainDepositRef): Promise<StepResult<ChainDepositOutcome>> {
  return from(ref, ['MOVING'], credit);
}

async function moveHome(settling: ChainDepositRecord): Promise<StepResult<ChainDepositOutcome>> {
  let record = settling;
  const sender = chainSender();
  const reference = `${record.organizationId}:${record.id}`;
  if (record.status === 'SETTLING') {
    await sender.moveHome({ reference, fromNetwork: record.network, toNetwork: record.homeNetwork, amount: BigInt(record.amount) });
    record = await move(record, { to: 'MOVING', detail: `crossing from ${record.network} to ${record.homeNetwork}` });
    if (record.status !== 'MOVING') return outcomeOf(record);
  }
  const state = await sender.moveHomeStatus(reference);
  if (state.status === 'arrived') return { outcome: 'arrived' };
  if (state.status === 'unknown') {
    return settle(record, { to: 'NEEDS_ATTENTION', detail: 'the custodian has no record of the move home; the amount stays in settling for operations' });
  }
  return { outcome: 'moving', waitSeconds: 5 };
}

async function credit(record: ChainDepositRecord): Promise<StepResult<ChainDepositOutcome>> {
  const amount = BigInt(record.amount);
  const fee = BigInt(record.fee);
  const legs: LedgerMovement['legs'] = [
    { account: 'settling', amount: -amount },
    { account: 'available', amount: amount - fee },
    { account: 'expense:network-fees', amount: fee },
  ];
  return settle(record, {
    to: 'CREDITED',
    detail: `${formatDecimal(amount - fee, 6)} ${currency} credited on ${record.homeNetwork} after a move fee of ${formatDecimal(fee, 6)} ${currency}`,
    ledger: { organizationId: record.organizationId, entryId: `chainDeposit:${record.id}:credit`, operation: { kind: 'chainDeposit', id: record.id }, legs, memo: `move home of ${record.id}` },
  });
}

/** Anything unexpected: the amount stays in settling, for a person. */
export async function parkChainDeposit(ref: ChainDepositRef & { error?: unknown }): Promise<StepResult<ChainDepositOutcome>> {
  return chainDepositProgress.park(ref, ['SETTLING', 'MOVING'], (record) => ({
    to: 'NEEDS_ATTENTION',
    detail: `stopped in ${record.status} by an internal error; the amount stays in settling for operations`,
  }));
}
