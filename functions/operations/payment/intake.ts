import { ApiError, validationError } from '#platform/errors.ts';
import { operationMoved } from '#platform/metrics.ts';
import { applyMovement, InsufficientFunds } from '#store/ledger.ts';
import { getQuote, priceOfQuote, storedPrice, useQuoteItem, type QuoteRecord, type StoredPrice } from '#store/quotes.ts';
import { createTransactionItems, getTransactionAndHold, type TransactionRecord } from '#store/transactions.ts';
import { complianceHold, screenPaymentParties } from '#operations/compliance/holds.ts';
import { beneficiaryProblems, type CorridorDefinition } from '#domain/corridors.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { formatDecimal, money } from '#domain/money.ts';
import { corridorOf, pricePayment, PricingUnavailable, sendAmountOf } from '#operations/quote/quoting.ts';
import { hashRequest } from '#domain/requestHash.ts';
import { keyReused, replayExisting } from '#operations/kit/intake.ts';
import { startAfterCommit } from '#operations/kit/start.ts';
import type { CreateTransactionBody, TransactionAccepted } from '#schemas/transactions.ts';

const noun = 'payment';

/**
 * POST /transactions: everything that must hold before a payment exists, then one DynamoDB
 * transaction that holds the money, creates the payment (FUNDED), spends the quote and writes
 * the event that starts its workflow. Either all of it happens or none of it does, and the
 * idempotency key is the payment's id, so a retry can never pay twice.
 */
export async function acceptPayment(organizationId: string, body: CreateTransactionBody): Promise<TransactionAccepted> {
  const transactionId = body.idempotencyKey;
  const send = sendAmountOf(body.sendAmount);
  // The key is bound to the meaning (decision 071): the amount in minor units, not as spelled;
  // payoutMode changes nothing, every payment runs as regular.
  const requestHash = hashRequest({ ...body, payoutMode: undefined, sendAmount: { amount: send, currency: body.sendAmount.currency } });
  // The home wallet is read beside the key's check, not after it: two independent reads, one
  // round trip. Its answer (or refusal) counts only once the key proved new and the body valid.
  const homeRead = settled(homeWalletOf(organizationId, body.integratorWalletId));
  const earlier = await answerForExisting(organizationId, transactionId, requestHash);
  if (earlier) return earlier;

  const corridor = corridorOf(body.corridor);
  const problems = beneficiaryProblems(corridor, body.beneficiary);
  if (problems.missing.length > 0) {
    throw new ApiError('beneficiary_incomplete', `This corridor needs these beneficiary fields: ${problems.missing.join(', ')}.`, {
      missing: problems.missing,
    });
  }
  if (problems.invalid.length > 0) throw validationError(problems.invalid, 'The beneficiary is not valid for this corridor.');
  const beneficiary = body.beneficiary!;

  const home = unwrap(await homeRead);
  if (!home.chain) throw new ApiError('wallet_chain_unknown', 'The home wallet has no network yet (it is still being opened); retry shortly.');

  const now = new Date();
  const held = await screenPaymentParties({
    organizationId, transactionId, requestHash, originatorName: body.originator?.name, beneficiary, recipientReference: body.recipientReference, corridor: body.corridor, now,
  });
  if (held) throw held;

  const price: StoredPrice = body.quoteId
    ? priceOfQuote(await lockedQuote(organizationId, body, send, corridor, now))
    : await pricePayment({ corridor, send, homeNetwork: home.chain, now }).then(
        (priced) => storedPrice(priced.price),
        (error: unknown) => {
          if (error instanceof PricingUnavailable) throw new ApiError('unavailable', 'The pricing source is momentarily unavailable; retry with the same idempotency key.');
          throw error;
        },
      );

  const at = now.toISOString();
  const tx: TransactionRecord = {
    organizationId,
    transactionId,
    state: 'FUNDED',
    requestHash,
    corridor: { from: corridor.from, to: corridor.to, destinationCountry: corridor.destinationCountry },
    ...price,
    quoteId: body.quoteId ?? null,
    recipientReference: body.recipientReference,
    beneficiary,
    originator: body.originator ?? null,
    payoutMode: 'regular',
    timeline: [
      { state: 'INITIATED', at },
      { state: 'QUOTED', detail: body.quoteId ? `locked quote ${body.quoteId}` : 'priced at acceptance', at },
      { state: 'FUNDED', detail: `${formatDecimal(send, 6)} USDC held from the home wallet`, at },
    ],
    submitAttempts: 0,
    createdAt: at,
    updatedAt: at,
  };

  const extraItems: Record<string, unknown>[] = [...createTransactionItems(tx)];
  if (body.quoteId) extraItems.push(useQuoteItem(organizationId, body.quoteId, transactionId));
  try {
    await applyMovement(
      {
        organizationId,
        entryId: `payment:${transactionId}:hold`,
        operation: { kind: 'payment', id: transactionId },
        legs: [
          { account: 'available', amount: -send },
          { account: 'held', amount: send },
        ],
        memo: `hold for payment ${transactionId}`,
        now,
      },
      extraItems as never,
    );
  } catch (error) {
    // A racing identical request may have won: answer what it created.
    const raced = await answerForExisting(organizationId, transactionId, requestHash);
    if (raced) return raced;
    if (error instanceof InsufficientFunds) {
      throw new ApiError('insufficient_funds', 'The home wallet does not hold enough USDC for this payment.', {
        available: money(error.available, 'USDC'),
      });
    }
    if (body.quoteId) {
      const quote = await getQuote(organizationId, body.quoteId);
      if (quote?.usedBy && quote.usedBy !== transactionId) throw quoteUsed();
    }
    throw error;
  }

  operationMoved('payment', 'FUNDED');
  await startAfterCommit('payment', organizationId, transactionId);
  return { transactionId, status: 'FUNDED' };
}

/** The same key again: the same answer (compliance hold, or the payment as it stands), never a second payment. */
async function answerForExisting(organizationId: string, transactionId: string, requestHash: string): Promise<TransactionAccepted | undefined> {
  const { transaction, hold } = await getTransactionAndHold(organizationId, transactionId);
  if (hold && hold.requestHash !== requestHash) throw keyReused(noun);
  if (hold) throw complianceHold('payment', transactionId);
  const existing = await replayExisting(transaction, requestHash, {
    noun,
    // A retry after a crash between funding and starting: starting again is a no-op when it runs.
    startIfStarting: (tx) => (tx.state === 'FUNDED' ? startAfterCommit('payment', organizationId, transactionId) : Promise.resolve()),
  });
  return existing && { transactionId, status: existing.state };
}

async function lockedQuote(organizationId: string, body: CreateTransactionBody, send: bigint, corridor: CorridorDefinition, now: Date): Promise<QuoteRecord> {
  const quote = await getQuote(organizationId, body.quoteId!);
  if (!quote) throw new ApiError('quote_not_found', 'No such quote for this organization.');
  if (quote.corridor.to !== corridor.to || quote.corridor.destinationCountry !== corridor.destinationCountry || BigInt(quote.send) !== send) {
    throw new ApiError('quote_mismatch', 'The corridor and send amount must be those of the quote.');
  }
  if (quote.idempotencyKey !== null && quote.idempotencyKey !== body.idempotencyKey) {
    throw new ApiError('quote_mismatch', 'This quote was issued for another idempotency key; send the payment with that key.');
  }
  if (quote.usedBy && quote.usedBy !== body.idempotencyKey) throw quoteUsed();
  if (Date.parse(quote.expiresAt) <= now.getTime()) throw new ApiError('quote_expired', 'The quote has expired; get a new one.');
  return quote;
}

/** Single use: a quote another payment accepted can no longer be accepted (decision 042). */
function quoteUsed(): ApiError {
  return new ApiError('quote_expired', 'This quote was already used by another payment; get a new quote.');
}

type Settled<T> = { value: T } | { error: unknown };

/** A read started early whose refusal must wait its turn: held as a value, so it is never an unhandled rejection. */
function settled<T>(read: Promise<T>): Promise<Settled<T>> {
  return read.then((value) => ({ value }), (error: unknown) => ({ error }));
}

function unwrap<T>(result: Settled<T>): T {
  if ('error' in result) throw result.error;
  return result.value;
}
