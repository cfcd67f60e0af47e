import { ApiError } from '#platform/errors.ts';
import { money, rateJson } from '#domain/money.ts';
import type { CorridorDefinition } from '#domain/corridors.ts';
import type { Price } from '#domain/pricing.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { corridorOf, newQuoteId, pricePayment, PricingUnavailable, sendAmountOf } from '#operations/quote/quoting.ts';
import { putQuote, quoteRecord } from '#store/quotes.ts';
import type { CreateQuoteBody, QuotePreviewResult } from '#schemas/quotes.ts';

/**
 * POST /quotes: the payment priced on the home wallet's network and the price locked (stored until
 * it expires), answered as the preview a payment can quote by its id. A pricing source that does
 * not answer is 422 `quote_unavailable` (retry), never a guessed price.
 */
export async function lockQuote(organizationId: string, request: CreateQuoteBody): Promise<QuotePreviewResult> {
  const send = sendAmountOf(request.sendAmount);
  const corridor = corridorOf(request.corridor);
  const home = await homeWalletOf(organizationId, request.integratorWalletId);
  if (!home.chain) throw new ApiError('no_route_for_chain', 'The home wallet is still being opened and has no network yet; try again shortly.');

  const now = new Date();
  const priced = await pricePayment({ corridor, send, homeNetwork: home.chain, now }).catch((error: unknown) => {
    if (error instanceof PricingUnavailable) throw new ApiError('quote_unavailable', 'The pricing source is momentarily unavailable; retry in a few seconds.');
    throw error;
  });
  const record = quoteRecord({
    organizationId,
    quoteId: newQuoteId(),
    corridor: { from: corridor.from, to: corridor.to, destinationCountry: corridor.destinationCountry },
    price: priced.price,
    expiresAt: priced.expiresAt,
    idempotencyKey: request.idempotencyKey ?? null,
    now,
  });
  await putQuote(record);
  return quotePreview(record.quoteId, record.expiresAt, corridor, priced.price);
}

function quotePreview(quoteId: string, expiresAt: string, corridor: CorridorDefinition, price: Price): QuotePreviewResult {
  const preview: QuotePreviewResult = {
    quoteId,
    sendAmount: money(price.send, corridor.from),
    receiveAmount: money(price.receive, corridor.to),
    fee: money(price.fee, corridor.from),
    rate: rateJson(corridor.from, corridor.to, price.rate),
    provider: price.route.provider,
    routeKind: price.route.kind,
    estimatedSeconds: price.route.estimatedSeconds,
    expiresAt,
  };
  if (price.margin) preview.margin = { bps: price.margin.bps, amount: money(price.margin.amount, corridor.from) };
  if (price.networkFee !== null) preview.networkFee = money(price.networkFee, corridor.from);
  return preview;
}
