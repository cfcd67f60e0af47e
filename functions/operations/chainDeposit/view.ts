import { money } from '#domain/money.ts';
import type { OperationBase } from '#store/operations.ts';

/** The one currency a chain deposit credits. */
export const chainDepositCurrency = 'USDC';

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

export function chainDepositView(record: ChainDepositRecord) {
  return {
    depositId: record.id,
    status: record.status,
    network: record.network,
    txHash: record.txHash,
    amount: money(BigInt(record.amount), chainDepositCurrency),
    fee: money(BigInt(record.fee), chainDepositCurrency),
    timeline: record.timeline,
  };
}

