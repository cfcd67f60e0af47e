import type { OperationBase } from '#store/operations.ts';
import { storedOperationPage, storedOperationView } from '#operations/kit/view.ts';
import type { WithdrawalListItem, WithdrawalState, WithdrawalStatus } from '#schemas/withdrawals.ts';
import { money } from '#domain/money.ts';

/**
 * A withdrawal as stored (functions/store/operations.ts, kind `withdrawal`) and as the contract
 * shows it. Amounts are USDC minor units written as decimal strings (a DynamoDB number would
 * come back a float). The figures are those priced when the request was accepted: a repeat of
 * the request answers them, whatever prices do since (docs/decisions/060).
 */
export interface WithdrawalRecord extends OperationBase {
  kind: 'withdrawal';
  status: WithdrawalState;
  /** Withdrawn: what leaves the balance. */
  amount: string;
  network: string;
  /** The home wallet's network when accepted: a withdrawal elsewhere crosses first. */
  homeNetwork: string;
  toAddress: string;
  /** The crossing home → network (0 on the home network), the same figure deposits and quotes use. */
  crossingFee: string;
  /** Gas with its headroom. */
  gasFee: string;
  fee: string;
  /** What arrives: amount − fee. */
  net: string;
  sendAttempts: number;
  /** The custodian's transfer, once it accepted the send. */
  transferId: string | null;
  /** Set with SENT: the transaction confirmed on chain. */
  txHash: string | null;
}

export const withdrawalCurrency = 'USDC';

/** Done: stop polling. */
export const withdrawalTerminalStates: readonly WithdrawalState[] = ['SENT', 'RETURNED', 'FAILED'];
/** A person must act: stop polling (funds held). */
export const withdrawalNeedsPersonStates: readonly WithdrawalState[] = ['IN_DOUBT', 'NEEDS_ATTENTION'];

export function isWithdrawalRunning(state: WithdrawalState): boolean {
  return !withdrawalTerminalStates.includes(state) && !withdrawalNeedsPersonStates.includes(state);
}

export function withdrawalStatusView(record: WithdrawalRecord): WithdrawalStatus {
  return {
    withdrawalId: record.id,
    state: record.status,
    running: isWithdrawalRunning(record.status),
    timeline: record.timeline.map((entry) => ({ state: entry.status as WithdrawalState, ...(entry.detail ? { detail: entry.detail } : {}) })),
    net: money(BigInt(record.net), withdrawalCurrency),
    ...(record.txHash ? { txHash: record.txHash } : {}),
  };
}

export function withdrawalListItem(record: WithdrawalRecord): WithdrawalListItem {
  return {
    withdrawalId: record.id,
    amount: money(BigInt(record.amount), withdrawalCurrency),
    network: record.network,
    toAddress: record.toAddress,
    createdAt: record.createdAt,
  };
}

/** The reference the custodian knows the send by: unique per organization and withdrawal. */
export function sendReference(record: Pick<WithdrawalRecord, 'organizationId' | 'id'>): string {
  return `${record.organizationId}:${record.id}`;
}

/** GET /treasury/withdrawals/{withdrawalId}: the organization's withdrawal as the contract shows it; undefined when it has none of that id. */
export function withdrawalOf(organizationId: string, withdrawalId: string): Promise<WithdrawalStatus | undefined> {
  return storedOperationView(organizationId, 'withdrawal', withdrawalId, withdrawalStatusView);
}

/** GET /treasury/withdrawals: a page, newest first. */
export function withdrawalPage(organizationId: string, page: { limit?: number; cursor?: string }) {
  return storedOperationPage(organizationId, 'withdrawal', page, withdrawalListItem);
}
