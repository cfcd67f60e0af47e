import { ApiError, notFound, validationError } from '#platform/errors.ts';
import { FxPairUnsupported } from '#providers/fx.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { keyConflict, keyReused } from '#operations/kit/intake.ts';
import { startAfterCommit } from '#operations/kit/start.ts';
import { onRampProvider } from '#providers/onRamp.ts';
import { claimantOf, createOperation, getOperation, listOperations } from '#store/operations.ts';
import { openOnRampPut } from '#store/statementLines.ts';
import type { CreateOnRampBody, CreatePixOnRampBody, OnRampAccepted, OnRampListItem, PixOnRampAccepted } from '#schemas/deposits.ts';
import type { SimulatedOnRampPayment } from '#schemas/sandbox.ts';
import { brCodeFields } from '#domain/brCode.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { formatDecimal, money } from '#domain/money.ts';
import { fiatToUsdcRate, figuresOf, onRampStablecoin, parseFiat, pixCurrency, pixFeeBps, pixMaximum, pixMinimum, usdc, wireAccountOf, wireFeeBps, wireMaximum, wireMinimumOf } from '#operations/onRamp/pricing.ts';
import { hashRequest } from '#domain/requestHash.ts';
import { depositIdPrefix, isRunning, listItemView, newOnRamp, onRampCreateOptions, type OnRampOrigin, type OnRampRecord, openMarkerOf, originIndexKey, paymentWindowSeconds, providerReferenceOf, wireInstructionsOf } from './view.ts';

/**
 * Accepting on-ramps (POST /treasury/onramp, POST /treasury/onramp/pix), their reads, and the
 * sandbox's simulated PIX payment. The record, its views and its markers are in ./view.ts; the
 * workflow's steps in ./progress.ts.
 */

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
