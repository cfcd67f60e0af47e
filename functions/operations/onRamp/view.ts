import { type OperationBase } from '#store/operations.ts';
import { openOnRampDelete, type OpenOnRampMarker } from '#store/statementLines.ts';
import type { TransactItem } from '#store/client.ts';
import type { OnRampInstructions, OnRampListItem, OnRampStage, OnRampStatus } from '#schemas/deposits.ts';
import { depositReferenceOf } from '#domain/depositReference.ts';
import type { HouseAccount } from '#domain/houseAccounts.ts';
import { money } from '#domain/money.ts';
import { usdc, deliveryMethod } from '#operations/onRamp/pricing.ts';

/**
 * On-ramps: bank wires (USD, EUR) and PIX (BRL) that end as USDC in the home wallet
 * (docs/decisions/054-wire-onramps.md, 055-pix-onramps.md). One operation each in the shared
 * store (functions/store/operations.ts, kind `onramp`); its status is the contract's stage.
 * Three origins: `api` (POST /treasury/onramp, a wire announced in advance), `pix` (POST
 * /treasury/onramp/pix) and `deposit` (a wire that arrived quoting the reference with no on-ramp
 * open: functions/operations/onRamp/wireDeposits.ts). The workflow (functions/operations/onRamp/progress.ts) moves
 * each one on; the USDC is credited only with DELIVERED.
 */
export type OnRampOrigin = 'api' | 'deposit' | 'pix';
export type OnRampRail = 'wire' | 'pix';

export interface OnRampRecord extends OperationBase {
  kind: 'onramp';
  status: OnRampStage;
  origin: OnRampOrigin;
  rail: OnRampRail;
  currency: string;
  /** Fiat minor units asked for (api, pix) or received (deposit). */
  amount: string;
  /** Fiat minor units received, once they are. */
  received: string | null;
  statementLineId: string | null;
  targetStablecoin: 'USDC';
  instructions: OnRampInstructions | null;
  /** End of the payment window (api, pix); null for a deposit, which arrived already paid. */
  expiresAt: string | null;
  feeBps: number;
  /** USDC minor units; fixed when the code is opened (PIX) or at conversion (wire). */
  gross: string | null;
  fee: string | null;
  net: string | null;
  rate: { numerator: string; denominator: string } | null;
  fxProvider: string | null;
  deliveryNetwork: string | null;
  deliveryAddress: string | null;
  txHash: string | null;
  /** Delivery calls made, this one counted (set when DELIVERING starts; absent on deposits delivered before it was kept). */
  deliveryAttempts?: number;
}

export const endStages: readonly OnRampStage[] = ['DELIVERED', 'REFUNDED', 'FAILED', 'EXPIRED', 'IN_DOUBT'];

export function isRunning(stage: OnRampStage): boolean {
  return !endStages.includes(stage);
}

/** The id prefix of deposits started by a wire; never chosen by a caller. */
export const depositIdPrefix = 'dep-';

/** Internal event: a deposit exists whose workflow must run (the safety net starts it: functions/events/operationStarter.ts). */
export const onRampStartedEvent = 'onramp.started';

/** The provider's reference of this on-ramp: unique across organizations. */
export function providerReferenceOf(record: Pick<OnRampRecord, 'organizationId' | 'id'>): string {
  return `${record.organizationId}:${record.id}`;
}

/** Payment windows, read on every call so tests can shorten them: 7 days for a wire, 30 minutes for a PIX code. */
export function paymentWindowSeconds(rail: OnRampRail): number {
  const [name, fallback] = rail === 'wire' ? ['ONRAMP_WIRE_EXPIRY_SECONDS', 7 * 24 * 3600] : ['ONRAMP_PIX_EXPIRY_SECONDS', 30 * 60];
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!/^\d{1,8}$/.test(text) || Number(text) === 0) throw new Error(`${name} must be a positive whole number of seconds`);
  return Number(text);
}

export function statusView(record: OnRampRecord): OnRampStatus {
  const view: OnRampStatus = {
    onRampId: record.id,
    running: isRunning(record.status),
    stage: record.status,
    timeline: record.timeline.map(({ status, at }) => ({ stage: status as OnRampStage, at })),
    feeBps: record.feeBps,
    deliveryMethod,
  };
  if (!isRunning(record.status)) view.state = record.status as NonNullable<OnRampStatus['state']>;
  if (record.failure) view.failure = record.failure;
  if (record.gross !== null) view.gross = usdc(BigInt(record.gross));
  if (record.fee !== null) view.fee = usdc(BigInt(record.fee));
  if (record.net !== null) view.net = usdc(BigInt(record.net));
  if (record.fxProvider) view.fxProvider = record.fxProvider;
  if (record.txHash) view.txHash = record.txHash;
  if (record.instructions) view.instructions = record.instructions;
  return view;
}

export function listItemView(record: OnRampRecord): OnRampListItem {
  return {
    onRampId: record.id,
    origin: record.origin,
    amount: money(BigInt(record.amount), record.currency),
    targetStablecoin: record.targetStablecoin,
    createdAt: record.createdAt,
  };
}

/** The wire instructions: the house account of the currency and the organization's reference, only fields held. */
export function wireInstructionsOf(organizationId: string, account: HouseAccount): OnRampInstructions {
  return {
    reference: depositReferenceOf(organizationId),
    accountName: account.accountName,
    ...(account.iban ? { iban: account.iban } : {}),
    ...(account.accountNumber ? { accountNumber: account.accountNumber } : {}),
    ...(account.bic ? { bic: account.bic } : {}),
  };
}

export function openMarkerOf(record: OnRampRecord): OpenOnRampMarker {
  return { organizationId: record.organizationId, currency: record.currency, createdAt: record.createdAt, onRampId: record.id };
}

/** Items that close an api on-ramp's open marker with a transition out of waiting (none for other origins). */
export function closeMarkerItems(record: OnRampRecord): TransactItem[] {
  return record.origin === 'api' ? [openOnRampDelete(openMarkerOf(record))] : [];
}

/** Lists per origin live on gsi2, so a filtered page is a full page. */
export function originIndexKey(organizationId: string, origin: OnRampOrigin): string {
  return `ORG#${organizationId}#onramp#${origin}`;
}

export function onRampCreateOptions(record: OnRampRecord, extraItems: TransactItem[] = []) {
  return {
    event: { type: onRampStartedEvent, data: statusView(record) },
    gsi2: { pk: originIndexKey(record.organizationId, record.origin) },
    extraItems,
  };
}

type NewOnRampFields = Pick<
  OnRampRecord,
  'organizationId' | 'id' | 'status' | 'origin' | 'rail' | 'currency' | 'amount' | 'targetStablecoin' | 'instructions' | 'expiresAt' | 'feeBps'
> &
  Partial<Pick<OnRampRecord, 'requestHash' | 'received' | 'statementLineId' | 'gross' | 'fee' | 'net' | 'rate' | 'fxProvider'>> & {
    now: Date;
    timeline: { status: OnRampStage; detail?: string }[];
  };

export function newOnRamp(fields: NewOnRampFields): OnRampRecord {
  const at = fields.now.toISOString();
  const { now: _now, timeline, ...rest } = fields;
  return {
    kind: 'onramp',
    requestHash: null,
    received: null,
    statementLineId: null,
    gross: null,
    fee: null,
    net: null,
    rate: null,
    fxProvider: null,
    deliveryNetwork: null,
    deliveryAddress: null,
    txHash: null,
    ...rest,
    timeline: timeline.map((entry) => ({ ...entry, at })),
    createdAt: at,
    updatedAt: at,
  };
}
