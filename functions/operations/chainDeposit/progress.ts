import { logger } from '#platform/logger.ts';
import { OperationNotFound } from '#operations/kit/errors.ts';
import { executionName, workflowEngine } from '#platform/workflow.ts';
import { chainSender } from '#providers/chain.ts';
import { depositMovement, type LedgerMovement } from '#store/ledger.ts';
import { createOperation, getOperation, transitionOperation, type OperationBase, type OperationTransition } from '#store/operations.ts';
import { walletOfExternalId, findWallet } from '#store/wallets.ts';
import { depositNetworksOf } from '#domain/cryptoDeposit.ts';
import { formatDecimal, money } from '#domain/money.ts';

/**
 * USDC that arrived on chain in an organization's home wallet (docs/decisions/056). A custody
 * adapter calls `acceptChainDeposit` when its custodian reports an incoming transfer; in
 * `simulated` there is no custodian to report one, and the ops command
 * `admin chain-deposit simulate` (lib/ops/chainDeposit.ts) calls it instead.
 *
 * - On the home network it is credited as is: `external:chain` → `available`, status CREDITED.
 * - On another listed network it is credited to `settling` (GET /balance shows it in `settling`
 *   and `total`), and the chainDeposit workflow moves it home across the crossing and moves it
 *   settling → available less the move fee (the same crossing fee GET /treasury/crypto-deposit
 *   shows; a deposit smaller than the fee is consumed by it).
 *
 * One deposit per (network, transaction hash): its id, claimed globally, so a notification
 * delivered twice credits once.
 */
export type ChainDepositStatus = 'SETTLING' | 'MOVING' | 'CREDITED' | 'NEEDS_ATTENTION';

export interface ChainDepositRecord extends OperationBase {
  kind: 'chainDeposit';
  status: ChainDepositStatus;
  walletId: string;
  network: string;
  homeNetwork: string;
  txHash: string;
  /** USDC minor units that arrived. */
  amount: string;
  /** The move fee (0 on the home network), at most the amount. */
  fee: string;
}

export interface ChainDepositNotice {
  /** The custodian's handle of the wallet (or the service's wallet id). */
  walletExternalId: string;
  network: string;
  txHash: string;
  /** USDC minor units. */
  amount: bigint;
  currency?: string;
}

/** The deposit cannot be credited as reported; nothing was written. */
export class ChainDepositRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainDepositRefused';
  }
}

const currency = 'USDC';

export async function acceptChainDeposit(notice: ChainDepositNotice, options: { organizationId?: string } = {}): Promise<{ deposit: ChainDepositRecord; repeated: boolean }> {
  if ((notice.currency ?? currency) !== currency) throw new ChainDepositRefused(`only ${currency} is credited; ${notice.currency} is not`);
  if (notice.amount <= 0n) throw new ChainDepositRefused('the amount must be positive');
  if (!/^(0x)?[0-9A-Za-z]{16,128}$/.test(notice.txHash)) throw new ChainDepositRefused('the transaction hash is not well formed');
  const wallet = options.organizationId
    ? await findWallet(options.organizationId, notice.walletExternalId)
    : await walletOfExternalId(notice.walletExternalId);
  if (!wallet) throw new ChainDepositRefused(`no wallet ${notice.walletExternalId}`);
  if (!wallet.home || wallet.status !== 'active' || !wallet.chain) throw new ChainDepositRefused(`wallet ${wallet.id} is not an active home wallet`);
  const listed = depositNetworksOf(wallet.chain)?.find((entry) => entry.network === notice.network);
  if (!listed) throw new ChainDepositRefused(`USDC on ${notice.network} is not a listed deposit network`);

  // EVM hashes are hex: one transaction whatever its case. Base58 ones are case-sensitive.
  const txHash = listed.format === 'evm' ? notice.txHash.toLowerCase() : notice.txHash;
  const id = `${notice.network}:${txHash}`;
  const home = listed.home;
  const fee = listed.fee < notice.amount ? listed.fee : notice.amount;
  const at = new Date().toISOString();
  const arrived = `${formatDecimal(notice.amount, 6)} ${currency} arrived on ${notice.network} in ${txHash}`;
  const record: ChainDepositRecord = {
    organizationId: wallet.organizationId,
    kind: 'chainDeposit',
    id,
    status: home ? 'CREDITED' : 'SETTLING',
    requestHash: null,
    timeline: [{ status: home ? 'CREDITED' : 'SETTLING', at, detail: home ? arrived : `${arrived}; moving it to ${wallet.chain}` }],
    createdAt: at,
    updatedAt: at,
    walletId: wallet.id,
    network: notice.network,
    homeNetwork: wallet.chain,
    txHash,
    amount: notice.amount.toString(),
    fee: fee.toString(),
  };
  const ledger: LedgerMovement = home
    ? depositMovement({ organizationId: wallet.organizationId, depositId: `chain:${id}`, amount: notice.amount, rail: 'chain', memo: arrived })
    : {
        organizationId: wallet.organizationId,
        entryId: `chainDeposit:${id}:settling`,
        operation: { kind: 'chainDeposit', id },
        legs: [
          { account: `external:chain:${notice.network}`, amount: -notice.amount },
          { account: 'settling', amount: notice.amount },
        ],
        memo: arrived,
      };
  const outcome = await createOperation(record, { ledger, event: { type: `chain_deposit.${record.status.toLowerCase()}`, data: chainDepositView(record) } });
  if ('otherOrganization' in outcome) throw new ChainDepositRefused(`transaction ${id} was already credited to another organization`);
  const deposit = 'created' in outcome ? outcome.created : outcome.existing;
  // A repeated notice also restarts a move home that a crash left unstarted (the engine refuses a second run).
  if (deposit.status === 'SETTLING' || deposit.status === 'MOVING') await startChainDepositWorkflow(deposit.organizationId, deposit.id);
  return { deposit, repeated: 'existing' in outcome };
}

export function chainDepositView(record: ChainDepositRecord) {
  return {
    depositId: record.id,
    status: record.status,
    network: record.network,
    txHash: record.txHash,
    amount: money(BigInt(record.amount), currency),
    fee: money(BigInt(record.fee), currency),
    timeline: record.timeline,
  };
}

export function chainDepositExecutionName(organizationId: string, depositId: string): string {
  return executionName(organizationId, `chain-deposit-${depositId}`);
}

export async function startChainDepositWorkflowOrThrow(organizationId: string, depositId: string): Promise<void> {
  const engine = await workflowEngine();
  await engine.start('chainDeposit', chainDepositExecutionName(organizationId, depositId), { organizationId, depositId });
}

export async function startChainDepositWorkflow(organizationId: string, depositId: string): Promise<void> {
  try {
    await startChainDepositWorkflowOrThrow(organizationId, depositId);
  } catch (error) {
    // The deposit is in settling and its `chain_deposit.settling` event will start the move.
    logger.error('chain deposit workflow not started; its settling event will start it', { depositId, error: error as Error });
  }
}

// ---- The workflow's steps (statemachines/chain-deposit.asl.json) ---------------------------

export type ChainDepositOutcome = 'moving' | 'arrived' | 'done';

export interface ChainDepositRef {
  organizationId: string;
  depositId: string;
}

/** SETTLING → MOVING (the custodian asked to move it home, idempotent on the deposit), then whether it has arrived. */
export async function moveDepositHome(ref: ChainDepositRef): Promise<{ outcome: ChainDepositOutcome; waitSeconds?: number }> {
  let record = await load(ref);
  if (record.status !== 'SETTLING' && record.status !== 'MOVING') return { outcome: 'done' };
  const sender = chainSender();
  const reference = `${record.organizationId}:${record.id}`;
  if (record.status === 'SETTLING') {
    await sender.moveHome({ reference, fromNetwork: record.network, toNetwork: record.homeNetwork, amount: BigInt(record.amount) });
    record = await move(record, { to: 'MOVING', detail: `crossing from ${record.network} to ${record.homeNetwork}` });
    if (record.status !== 'MOVING') return { outcome: 'done' };
  }
  const state = await sender.moveHomeStatus(reference);
  if (state.status === 'arrived') return { outcome: 'arrived' };
  if (state.status === 'unknown') {
    await move(record, { to: 'NEEDS_ATTENTION', detail: 'the custodian has no record of the move home; the amount stays in settling for operations' });
    return { outcome: 'done' };
  }
  return { outcome: 'moving', waitSeconds: 5 };
}

/** MOVING → CREDITED: settling → available less the move fee, the fee to `expense:network-fees`. */
export async function creditDepositHome(ref: ChainDepositRef): Promise<{ outcome: ChainDepositOutcome }> {
  const record = await load(ref);
  if (record.status !== 'MOVING') return { outcome: 'done' };
  const amount = BigInt(record.amount);
  const fee = BigInt(record.fee);
  const legs: LedgerMovement['legs'] = [
    { account: 'settling', amount: -amount },
    { account: 'available', amount: amount - fee },
    { account: 'expense:network-fees', amount: fee },
  ];
  await move(record, {
    to: 'CREDITED',
    detail: `${formatDecimal(amount - fee, 6)} ${currency} credited on ${record.homeNetwork} after a move fee of ${formatDecimal(fee, 6)} ${currency}`,
    ledger: { organizationId: record.organizationId, entryId: `chainDeposit:${record.id}:credit`, operation: { kind: 'chainDeposit', id: record.id }, legs, memo: `move home of ${record.id}` },
  });
  return { outcome: 'done' };
}

/** Anything unexpected: the amount stays in settling, for a person. */
export async function parkChainDeposit(ref: ChainDepositRef & { error?: unknown }): Promise<{ outcome: ChainDepositOutcome }> {
  const record = await load(ref);
  logger.error('chain deposit stopped by an unexpected workflow error', { depositId: record.id, status: record.status, error: ref.error });
  if (record.status === 'SETTLING' || record.status === 'MOVING') {
    await move(record, { to: 'NEEDS_ATTENTION', detail: `stopped in ${record.status} by an internal error; the amount stays in settling for operations` });
  }
  return { outcome: 'done' };
}

async function load(ref: ChainDepositRef): Promise<ChainDepositRecord> {
  const record = await getOperation<ChainDepositRecord>(ref.organizationId, 'chainDeposit', ref.depositId);
  if (!record) throw new OperationNotFound('chain deposit', ref.depositId);
  return record;
}

async function move(record: ChainDepositRecord, transition: OperationTransition<ChainDepositRecord>): Promise<ChainDepositRecord> {
  const next = await transitionOperation(record, {
    ...transition,
    event: (after) => (after.status === 'CREDITED' || after.status === 'NEEDS_ATTENTION' ? { type: `chain_deposit.${after.status.toLowerCase()}`, data: chainDepositView(after) } : undefined),
  });
  return next ?? load({ organizationId: record.organizationId, depositId: record.id });
}
