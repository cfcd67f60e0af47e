import { money } from '#domain/money.ts';
import type { OperationBase } from '#store/operations.ts';
import { storedOperationPage, storedOperationView } from '#operations/kit/view.ts';
import type { OffRampBeneficiaryRecord } from '#store/offRampBeneficiaries.ts';
import type { OffRampListItem, OffRampStage, OffRampState, OffRampStatus } from '#schemas/offramps.ts';

/**
 * An off-ramp as stored (an operation of kind `offramp`, functions/store/operations.ts), and what
 * the contract shows of it. Amounts are strings of minor units: USDC (scale 6) for `amount`, `fee`,
 * `deliveryFee`, `credited`; the payout currency for `quotedNet`, `net`, `slippage`.
 */
export interface OffRampRecord extends OperationBase {
  kind: 'offramp';
  status: OffRampStage;
  /** USDC pulled from the balance. */
  amount: string;
  beneficiaryId: string;
  /** The payee as registered (immutable), so the workflow needs no second read. */
  beneficiary: Omit<OffRampBeneficiaryRecord, 'organizationId'>;
  currency: string;
  fee: string;
  deliveryFee: string;
  quoteId: string | null;
  /** The net the quote bound the payout to; null when the payout is whatever the conversion produces. */
  quotedNet: string | null;
  fxBufferBps: number | null;
  /** The home network the USDC leaves from. */
  network: string;
  depositAttempts: number;
  credited?: string;
  net?: string;
  slippage?: string;
  closedAs?: string;
}

export const offRampEndStates: readonly OffRampState[] = ['PAID', 'REFUNDED', 'FAILED', 'IN_DOUBT'];

export function isOffRampEnded(stage: OffRampStage): stage is OffRampState {
  return (offRampEndStates as readonly string[]).includes(stage);
}

/** GET /treasury/offramp/:id, and the `data` of every off-ramp event. */
export function offRampStatusView(record: OffRampRecord): OffRampStatus {
  const net = record.net ?? record.quotedNet ?? undefined;
  return {
    offRampId: record.id,
    stage: record.status,
    ...(isOffRampEnded(record.status) ? { state: record.status } : {}),
    ...(record.closedAs ? { closedAs: record.closedAs } : {}),
    // `at` orders events and is not a timestamp (the contract): its place in the timeline.
    timeline: record.timeline.map((entry, at) => ({
      stage: entry.status as OffRampStage,
      at,
      ...(entry.detail ? { detail: entry.detail } : {}),
    })),
    ...(record.credited ? { credited: money(BigInt(record.credited), 'USDC') } : {}),
    ...(net !== undefined ? { net: money(BigInt(net), record.currency) } : {}),
    fee: money(BigInt(record.fee), 'USDC'),
    deliveryFee: money(BigInt(record.deliveryFee), 'USDC'),
    ...(record.slippage && record.slippage !== '0' ? { slippage: money(BigInt(record.slippage), record.currency) } : {}),
    ...(record.fxBufferBps !== null ? { fxBufferBps: record.fxBufferBps } : {}),
  };
}

export function offRampListRow(record: OffRampRecord): OffRampListItem {
  return { offRampId: record.id, amount: money(BigInt(record.amount), 'USDC'), beneficiaryId: record.beneficiaryId, createdAt: record.createdAt };
}

/** GET /treasury/offramp/{offRampId}: the organization's off-ramp as the contract shows it; undefined when it has none of that id. */
export function offRampOf(organizationId: string, offRampId: string): Promise<OffRampStatus | undefined> {
  return storedOperationView(organizationId, 'offramp', offRampId, offRampStatusView);
}

/** GET /treasury/offramps: a page, newest first. */
export function offRampPage(organizationId: string, page: { limit?: number; cursor?: string }) {
  return storedOperationPage(organizationId, 'offramp', page, offRampListRow);
}
