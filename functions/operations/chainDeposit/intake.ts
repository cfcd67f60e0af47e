import { depositMovement, type LedgerMovement } from '#store/ledger.ts';
import { createOperation } from '#store/operations.ts';
import { walletOfExternalId, findWallet } from '#store/wallets.ts';
import { depositNetworksOf } from '#domain/cryptoDeposit.ts';
import { formatDecimal } from '#domain/money.ts';
import { startAfterCommit } from '#operations/kit/start.ts';
import { chainDepositCurrency, chainDepositView, type ChainDepositRecord } from './view.ts';

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

export async function acceptChainDeposit(notice: ChainDepositNotice, options: { organizationId?: string } = {}): Promise<{ deposit: ChainDepositRecord; repeated: boolean }> {
  if ((notice.currency ?? chainDepositCurrency) !== chainDepositCurrency) throw new ChainDepositRefused(`only ${chainDepositCurrency} is credited; ${notice.currency} is not`);
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
  const arrived = `${formatDecimal(notice.amount, 6)} ${chainDepositCurrency} arrived on ${notice.network} in ${txHash}`;
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
  // A repeated notice also restarts a move home that a crash left unstarted (a second start of it runs nothing).
  if (deposit.status === 'SETTLING' || deposit.status === 'MOVING') await startAfterCommit('chainDeposit', deposit.organizationId, deposit.id);
  return { deposit, repeated: 'existing' in outcome };
}

