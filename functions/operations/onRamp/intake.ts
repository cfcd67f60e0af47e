import { ApiError, notFound, validationError } from '#platform/errors.ts';
import { FxPairUnsupported } from '#providers/fx.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { keyConflict, keyReused } from '#operations/kit/intake.ts';
import { startAfterCommit } from '#operations/kit/start.ts';
import { onRampProvider } from '#providers/onRamp.ts';
import { claimantOf, createOperation, getOperation, listOperations, type OperationBase } from '#store/operations.ts';
import { openOnRampDelete, openOnRampPut, type OpenOnRampMarker } from '#store/statementLines.ts';
import type { TransactItem } from '#store/client.ts';
import type {
  CreateOnRampBody, CreatePixOnRampBody, OnRampAccepted, OnRampInstructions, OnRampListItem, OnRampStage, OnRampStatus, PixOnRampAccepted,
} from '#schemas/deposits.ts';
import type { SimulatedOnRampPayment } from '#schemas/sandbox.ts';
import { brCodeFields } from '#domain/brCode.ts';
import { depositReferenceOf } from '#domain/depositReference.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import type { HouseAccount } from '#domain/houseAccounts.ts';
import { formatDecimal, money } from '#domain/money.ts';
import {
  fiatToUsdcRate, figuresOf, onRampStablecoin, parseFiat, pixCurrency, pixFeeBps, pixMaximum, pixMinimum, usdc, wireAccountOf, wireFeeBps,
  wireMaximum, wireMinimumOf, deliveryMethod,
} from '#operations/onRamp/pricing.ts';
import { hashRequest } from '#domain/requestHash.ts';

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

// ---- Views ------------------------------------------------------------------------------------

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

/** Starts the deposit's workflow right after its commit (the kit's one start rule; its `onramp.started` event is the safety net). */
export async function startOnRampWorkflow(organizationId: string, onRampId: string): Promise<void> {
  await startAfterCommit('onRamp', organizationId, onRampId);
}

// ---- Intake -------------------------------------------------------------------------------------

function refuseDepositIds(idempotencyKey: string): void {
  if (idempotencyKey.toLowerCase().startsWith(depositIdPrefix)) {
    throw validationError([{ path: ['idempotencyKey'], message: `must not start with ${depositIdPrefix}: that prefix names deposits started by a wire` }]);
  }
}

const noun = 'deposit';

/** The same key again: the same answer, or a 409 when the key belongs to something else. */
async function answerForExisting(organizationId: string, onRampId: string, requestHash: string, origin: OnRampOrigin): Promise<OnRampRecord | undefined> {
  const existing = await getOperation<OnRampRecord>(organizationId, 'onramp', onRampId);
  if (!existing) {
    const claimant = await claimantOf('onramp', onRampId);
    if (claimant !== undefined && claimant !== organizationId) throw keyConflict(noun);
    return undefined;
  }
  return checkExisting(existing, requestHash, origin);
}

function checkExisting(existing: OnRampRecord, requestHash: string, origin: OnRampOrigin): OnRampRecord {
  if (existing.origin !== origin) throw keyConflict(noun);
  if (existing.requestHash !== requestHash) throw keyReused(noun);
  return existing;
}

function accepted(record: OnRampRecord): OnRampAccepted {
  return { onRampId: record.id, status: record.status, ...(record.instructions ? { instructions: record.instructions } : {}) };
}

/**
 * POST /treasury/onramp: a wire deposit announced in advance. Stored OPENING_COLLECTION with its
 * instructions (the house account of the currency and the organization's reference) and an open
 * marker, so the wire that arrives quoting the reference is attributed to it; the workflow opens
 * the collection and waits for the wire until the window closes.
 */
export async function openWireOnRamp(organizationId: string, body: CreateOnRampBody): Promise<OnRampAccepted> {
  const onRampId = body.idempotencyKey;
  refuseDepositIds(onRampId);
  const currency = body.amount.currency;
  const account = wireAccountOf(currency, ['amount', 'currency']);
  const amount = parseFiat(body.amount.amount, currency, ['amount', 'amount']);
  const minimum = wireMinimumOf(currency);
  if (amount > wireMaximum) {
    throw validationError([{ path: ['amount', 'amount'], message: `must be at most ${formatDecimal(wireMaximum, 2)} ${currency}` }], 'The amount is above the largest wire one deposit takes.');
  }
  if (amount < minimum) {
    throw validationError([{ path: ['amount', 'amount'], message: `must be at least the minimum, ${formatDecimal(minimum, 2)} ${currency}` }], 'The amount is below the on-ramp minimum (GET /treasury/onramp/quote reports it).');
  }
  // destinationAddress is ignored (USDC always goes to the home wallet), so it does not make a request different.
  const requestHash = hashRequest({ rail: 'wire', currency, amount, targetStablecoin: body.targetStablecoin });
  const earlier = await answerForExisting(organizationId, onRampId, requestHash, 'api');
  if (earlier) {
    if (isRunning(earlier.status)) await startOnRampWorkflow(organizationId, onRampId);
    return accepted(earlier);
  }
  await homeWalletOf(organizationId);

  const now = new Date();
  const record = newOnRamp({
    organizationId,
    id: onRampId,
    status: 'OPENING_COLLECTION',
    origin: 'api',
    rail: 'wire',
    currency,
    amount: amount.toString(),
    targetStablecoin: onRampStablecoin,
    instructions: wireInstructionsOf(organizationId, account),
    expiresAt: new Date(now.getTime() + paymentWindowSeconds('wire') * 1000).toISOString(),
    feeBps: wireFeeBps,
    requestHash,
    now,
    timeline: [{ status: 'OPENING_COLLECTION', detail: `wire of ${formatDecimal(amount, 2)} ${currency} announced` }],
  });
  const outcome = await createOperation(record, onRampCreateOptions(record, [openOnRampPut(openMarkerOf(record))]));
  if ('otherOrganization' in outcome) throw keyConflict(noun);
  const stored = 'existing' in outcome ? checkExisting(outcome.existing, requestHash, 'api') : outcome.created;
  await startOnRampWorkflow(organizationId, onRampId);
  return accepted(stored);
}

/**
 * POST /treasury/onramp/pix: opens a BR Code at the PIX provider, with the price fixed now, and
 * stores the deposit AWAITING_PAYMENT with the code. The provider is idempotent on the reference,
 * so a retry after a crash between the two gets the same code; a retry after success reads it
 * from the stored deposit. Nothing is stored when the code cannot be opened (422).
 */
export async function openPixOnRamp(organizationId: string, body: CreatePixOnRampBody): Promise<PixOnRampAccepted> {
  const onRampId = body.idempotencyKey;
  refuseDepositIds(onRampId);
  const amount = parseFiat(body.amount.amount, pixCurrency, ['amount', 'amount']);
  if (amount < pixMinimum || amount > pixMaximum) {
    throw validationError(
      [{ path: ['amount', 'amount'], message: `must be within the PIX limits, ${formatDecimal(pixMinimum, 2)} to ${formatDecimal(pixMaximum, 2)} BRL` }],
      'The amount is outside the PIX limits (GET /treasury/onramp/pix/quote reports them).',
    );
  }
  const requestHash = hashRequest({ rail: 'pix', currency: pixCurrency, amount });
  const earlier = await answerForExisting(organizationId, onRampId, requestHash, 'pix');
  if (earlier) {
    if (isRunning(earlier.status)) await startOnRampWorkflow(organizationId, onRampId);
    return accepted(earlier) as PixOnRampAccepted;
  }

  const unavailable = (why: string) => new ApiError('pix_onramp_unavailable', `A PIX code cannot be opened right now: ${why}. Nothing was stored; retry later with the same key.`);
  try {
    await homeWalletOf(organizationId);
  } catch (error) {
    if (error instanceof ApiError) throw unavailable('there is no single home wallet to deliver the USDC to');
    throw error;
  }
  const now = new Date();
  let priced;
  try {
    priced = await fiatToUsdcRate(pixCurrency, now);
  } catch (error) {
    if (error instanceof ProviderUnavailable || error instanceof FxPairUnsupported) throw unavailable('the BRL price is not available');
    throw error;
  }
  const figures = figuresOf(amount, pixCurrency, priced.rate, pixFeeBps);
  const expiresAt = new Date(now.getTime() + paymentWindowSeconds('pix') * 1000);
  let opened;
  try {
    opened = await onRampProvider().openCollection({ reference: providerReferenceOf({ organizationId, id: onRampId }), rail: 'pix', currency: pixCurrency, amount, expiresAt });
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw unavailable('the PIX provider did not answer');
    throw error;
  }
  if (opened.status === 'refused') throw unavailable(`the PIX provider refused (${opened.reason})`);
  if (!opened.brCode) throw new Error('the PIX provider opened a collection without a BR Code');

  const record = newOnRamp({
    organizationId,
    id: onRampId,
    status: 'AWAITING_PAYMENT',
    origin: 'pix',
    rail: 'pix',
    currency: pixCurrency,
    amount: amount.toString(),
    targetStablecoin: onRampStablecoin,
    instructions: {
      reference: brCodeFields(opened.brCode).get('62')?.slice(4) ?? onRampId,
      brCode: opened.brCode,
      pay: money(amount, pixCurrency),
      receive: usdc(figures.net),
      expiresAt: opened.expiresAt,
    },
    expiresAt: opened.expiresAt,
    feeBps: pixFeeBps,
    gross: figures.gross.toString(),
    fee: figures.fee.toString(),
    net: figures.net.toString(),
    rate: { numerator: priced.rate.numerator.toString(), denominator: priced.rate.denominator.toString() },
    fxProvider: priced.provider,
    requestHash,
    now,
    timeline: [
      { status: 'OPENING_COLLECTION', detail: `PIX code for ${formatDecimal(amount, 2)} BRL requested` },
      { status: 'AWAITING_PAYMENT', detail: 'BR Code opened; waiting for the payer' },
    ],
  });
  const outcome = await createOperation(record, onRampCreateOptions(record));
  if ('otherOrganization' in outcome) throw keyConflict(noun);
  const stored = 'existing' in outcome ? checkExisting(outcome.existing, requestHash, 'pix') : outcome.created;
  await startOnRampWorkflow(organizationId, onRampId);
  return accepted(stored) as PixOnRampAccepted;
}

// ---- Reads --------------------------------------------------------------------------------------

export async function readOnRamp(organizationId: string, onRampId: string): Promise<OnRampRecord | undefined> {
  return getOperation<OnRampRecord>(organizationId, 'onramp', onRampId);
}

export async function listOnRampPage(
  organizationId: string,
  page: { limit?: number; cursor?: string; origin?: OnRampOrigin },
): Promise<{ rows: OnRampListItem[]; nextCursor: string | null }> {
  const subset = page.origin ? { gsi2pk: originIndexKey(organizationId, page.origin), list: `onramp:${page.origin}` } : undefined;
  const { rows, nextCursor } = await listOperations<OnRampRecord>(organizationId, 'onramp', { limit: page.limit, cursor: page.cursor }, subset);
  return { rows: rows.map(listItemView), nextCursor };
}

// ---- Sandbox ------------------------------------------------------------------------------------

function notSimulatable(message: string): ApiError {
  return new ApiError('not_simulatable', message);
}

/**
 * POST /treasury/onramp/{id}/simulate-payment: the simulated payer pays the open PIX code at the
 * provider, and nothing else is faked: the workflow learns of the payment from the provider, as
 * it would of a real one. A wire is paid with simulate-wire; a finished or expired deposit, or a
 * code already paid, cannot be paid (409 not_simulatable).
 */
export async function payAsSimulatedPayer(organizationId: string, onRampId: string): Promise<SimulatedOnRampPayment> {
  const record = await readOnRamp(organizationId, onRampId);
  if (!record) throw notFound('on-ramp');
  if (record.rail !== 'pix') throw notSimulatable('This is a wire deposit: pay it with POST /treasury/onramps/simulate-wire.');
  if (record.status !== 'AWAITING_PAYMENT') throw notSimulatable(`This deposit is ${record.status}: only a code awaiting payment can be paid.`);
  const paid = await onRampProvider().payCollection(providerReferenceOf(record));
  if (!paid.paid) throw notSimulatable(`The PIX provider refused the payment: ${paid.reason}.`);
  return { onRampId, simulated: true, detail: 'A simulated payer paid the BR Code at the PIX provider; the deposit continues on its own (GET /treasury/onramp/{onRampId}).' };
}
