import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { randomUUID } from 'node:crypto';
import { config } from '#platform/config.ts';
import { ApiError, validationError } from '#platform/errors.ts';
import { logger } from '#platform/logger.ts';
import { requestedAmount } from '#operations/kit/amount.ts';
import { keyConflict } from '#operations/kit/intake.ts';
import { startAfterCommit } from '#operations/kit/start.ts';
import { fxProvider } from '#providers/fx.ts';
import { offRampProvider } from '#providers/offRamp.ts';
import { getOffRampBeneficiary, type OffRampBeneficiaryRecord } from '#store/offRampBeneficiaries.ts';
import { getOffRampQuote, putOffRampQuote, spendOffRampQuoteItem, type OffRampQuoteRecord } from '#store/offRampQuotes.ts';
import { createOperation, getOperation } from '#store/operations.ts';
import { refuseHeldKey, screenOffRampPayee } from '#operations/compliance/holds.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { formatDecimal, money } from '#domain/money.ts';
import { offRampStatusView, type OffRampRecord } from '#operations/offRamp/view.ts';
import { offRampCurrencies, offRampFeeBps, offRampMinimum, payoutRailOf, priceOffRamp, type OffRampPrice } from '#domain/offRampPricing.ts';
import { hashRequest } from '#domain/requestHash.ts';
import type { CreateOffRampBody, OffRampAccepted, OffRampQuote, OffRampQuoteQuery } from '#schemas/offramps.ts';

/**
 * GET /treasury/offramp/quote and POST /treasury/offramp: every check that can refuse, then one
 * DynamoDB transaction that claims the id, creates the off-ramp (PULLING), spends the quote and
 * writes the `offramp.accepted` event that is the safety net for starting its workflow. No money
 * moves here: the contract gives POST no insufficient_funds, so the hold is the workflow's first
 * step, and an off-ramp that does not fit ends FAILED with nothing moved (decision 061).
 */
export const offRampAcceptedEvent = 'offramp.accepted';
const noun = 'off-ramp';

export async function quoteOffRamp(organizationId: string, query: OffRampQuoteQuery, now = new Date()): Promise<OffRampQuote> {
  const pulled = requestedAmount(query.amount, 'USDC', ['query', 'amount']);
  const beneficiary = await servedBeneficiary(organizationId, query.beneficiaryId, ['query', 'beneficiaryId']);
  const price = await priceNow(pulled, beneficiary.currency, now);
  const answer: OffRampQuote = {
    pulled: money(pulled, 'USDC'),
    settlementCurrency: beneficiary.currency,
    atPar: price.atPar,
    feeBps: offRampFeeBps,
    deliveryFee: money(price.deliveryFee, 'USDC'),
    minimum: money(offRampMinimum, 'USDC'),
    fee: money(price.fee, 'USDC'),
  };
  if (price.net === undefined) return answer;

  const expiresAt = new Date(Math.min(now.getTime() + config().QUOTE_TTL_SECONDS * 1000, price.expiresAt?.getTime() ?? Infinity));
  const record: OffRampQuoteRecord = {
    organizationId,
    quoteId: `oq_${randomUUID()}`,
    beneficiaryId: beneficiary.id,
    amount: pulled.toString(),
    currency: beneficiary.currency,
    fee: price.fee.toString(),
    deliveryFee: price.deliveryFee.toString(),
    net: price.net.toString(),
    fxBufferBps: price.fxBufferBps ?? null,
    expiresAt: expiresAt.toISOString(),
    createdAt: now.toISOString(),
  };
  await putOffRampQuote(record);
  return {
    ...answer,
    net: money(price.net, beneficiary.currency),
    ...(price.fxBufferBps !== undefined ? { fxBufferBps: price.fxBufferBps } : {}),
    quoteId: record.quoteId,
    expiresAt: record.expiresAt,
  };
}

export async function acceptOffRamp(organizationId: string, body: CreateOffRampBody, now = new Date()): Promise<OffRampAccepted> {
  const offRampId = body.idempotencyKey;
  const pulled = requestedAmount(body.amount.amount, body.amount.currency, ['amount', 'amount'], { currency: 'USDC', refusal: 'only USDC can be off-ramped' });
  // The key is bound to the meaning (decision 071): the amount in minor units, not as spelled.
  const requestHash = hashRequest({ ...body, amount: { amount: pulled, currency: body.amount.currency } });
  const earlier = await answerForExisting(organizationId, offRampId, requestHash);
  if (earlier) return earlier;
  await refuseHeldKey(organizationId, 'offramp', offRampId, requestHash, () => keyConflict(noun));

  if (pulled < offRampMinimum) {
    throw validationError([{ path: ['amount', 'amount'], message: `must be at least the minimum of ${formatDecimal(offRampMinimum, 6)} USDC` }]);
  }
  const home = await homeWalletOf(organizationId);
  if (!home.chain) throw new ApiError('no_home_wallet', 'The home wallet has no network yet (it is still being opened); retry shortly.');
  if (body.chain !== undefined && body.chain !== home.chain) {
    throw new ApiError('not_home_chain', `Off-ramps leave from the home network (${home.chain}); omit chain or send ${home.chain}.`);
  }
  const beneficiary = await servedBeneficiary(organizationId, body.beneficiaryId, ['beneficiaryId']);
  const held = await screenOffRampPayee({ organizationId, offRampId, requestHash, beneficiary, now });
  if (held) throw held;
  const price = priceOffRamp({ pulled, currency: beneficiary.currency });
  const quote = body.quoteId ? await usableQuote(organizationId, body.quoteId, offRampId, pulled, beneficiary.id, now) : undefined;

  const at = now.toISOString();
  const { organizationId: _owner, ...payee } = beneficiary;
  const record: OffRampRecord = {
    organizationId,
    kind: 'offramp',
    id: offRampId,
    status: 'PULLING',
    requestHash,
    timeline: [{ status: 'PULLING', at, detail: `${formatDecimal(pulled, 6)} USDC to ${beneficiary.currency} for beneficiary ${beneficiary.id}${quote ? ` at quote ${quote.quoteId}` : ''}` }],
    createdAt: at,
    updatedAt: at,
    amount: pulled.toString(),
    beneficiaryId: beneficiary.id,
    beneficiary: payee,
    currency: beneficiary.currency,
    fee: price.fee.toString(),
    deliveryFee: price.deliveryFee.toString(),
    quoteId: quote?.quoteId ?? null,
    quotedNet: quote?.net ?? null,
    fxBufferBps: quote?.fxBufferBps ?? null,
    network: home.chain,
    depositAttempts: 0,
  };
  let outcome;
  try {
    outcome = await createOperation(record, {
      event: { type: offRampAcceptedEvent, data: offRampStatusView(record) },
      extraItems: quote ? [spendOffRampQuoteItem(organizationId, quote.quoteId, offRampId, now)] : [],
    });
  } catch (error) {
    // Not the id: the quote was spent (or expired) by someone else between our read and the write.
    const raced = await answerForExisting(organizationId, offRampId, requestHash);
    if (raced) return raced;
    if (quote) {
      const current = await getOffRampQuote(organizationId, quote.quoteId);
      const spentElsewhere = current?.usedBy !== undefined && current.usedBy !== offRampId;
      if (spentElsewhere || Date.parse(quote.expiresAt) <= Date.now()) throw quoteAlreadyUsed();
    }
    throw error;
  }
  if ('otherOrganization' in outcome) throw keyConflict(noun);
  if ('existing' in outcome) {
    if (outcome.existing.requestHash !== requestHash) throw keyConflict(noun);
    return accepted(outcome.existing as OffRampRecord);
  }
  await startAfterCommit('offRamp', organizationId, offRampId);
  return { offRampId, status: 'PULLING' };
}

/** The same key again: the off-ramp as it stands (never a second one); another body: 409. */
async function answerForExisting(organizationId: string, offRampId: string, requestHash: string): Promise<OffRampAccepted | undefined> {
  const existing = await getOperation<OffRampRecord>(organizationId, 'offramp', offRampId);
  if (existing && existing.requestHash !== requestHash) throw keyConflict(noun);
  return existing && accepted(existing);
}

async function accepted(record: OffRampRecord): Promise<OffRampAccepted> {
  // A retry after a crash between creating and starting: starting again is refused by the engine if it runs.
  if (record.status === 'PULLING') await startAfterCommit('offRamp', record.organizationId, record.id);
  return { offRampId: record.id, status: record.status };
}

/** The quote, if this off-ramp may use it; the contract refuses an expired quote like a used one. */
async function usableQuote(
  organizationId: string, quoteId: string, offRampId: string, pulled: bigint, beneficiaryId: string, now: Date,
): Promise<OffRampQuoteRecord> {
  const quote = await getOffRampQuote(organizationId, quoteId);
  if (!quote) throw new ApiError('quote_not_found', 'No such off-ramp quote for this organization.');
  if (quote.beneficiaryId !== beneficiaryId || BigInt(quote.amount) !== pulled) {
    throw new ApiError('quote_mismatch', 'The amount and beneficiary must be those of the quote.');
  }
  if (quote.usedBy !== undefined && quote.usedBy !== offRampId) throw quoteAlreadyUsed();
  if (Date.parse(quote.expiresAt) <= now.getTime()) throw quoteAlreadyUsed('This quote has expired; get a new one.');
  return quote;
}

async function priceNow(pulled: bigint, currency: string, now: Date): Promise<OffRampPrice & { expiresAt?: Date }> {
  if (currency === 'USD') return priceOffRamp({ pulled, currency });
  try {
    const fx = await fxProvider().quote('USDC', currency, now);
    return { ...priceOffRamp({ pulled, currency, mid: fx.rate }), expiresAt: fx.expiresAt };
  } catch (error) {
    // No rate right now: the quote answers without a net (and without a quoteId), as the contract allows.
    if (!(error instanceof ProviderUnavailable)) throw error;
    logger.warn('off-ramp quoted without a net: the FX source is unavailable', { currency });
    return priceOffRamp({ pulled, currency });
  }
}

/**
 * The caller's beneficiary, in a payout currency we serve. Unknown and another organization's
 * answer the same 400 (the contract lists only `validation` for both endpoints; decision 061).
 */
async function servedBeneficiary(organizationId: string, beneficiaryId: string, path: string[]): Promise<OffRampBeneficiaryRecord> {
  const beneficiary = await getOffRampBeneficiary(organizationId, beneficiaryId);
  if (!beneficiary) throw validationError([{ path, message: 'no such beneficiary: register it with POST /treasury/beneficiaries' }]);
  if (!payoutRailOf(beneficiary.currency)) {
    throw validationError([
      { path, message: `payouts in ${beneficiary.currency} are not offered; off-ramps pay ${offRampCurrencies.join(', ')}` },
    ]);
  }
  return beneficiary;
}

function quoteAlreadyUsed(message = 'This quote was already used by another off-ramp; get a new one.'): ApiError {
  return new ApiError('quote_already_used', message);
}

