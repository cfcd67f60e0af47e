import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { createQuote } from '#contract/routes.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { money, rateJson } from '#domain/money.ts';
import { corridorOf, newQuoteId, pricePayment, PricingUnavailable, sendAmountOf } from '#operations/quote/quoting.ts';
import { putQuote, quoteRecord } from '#store/quotes.ts';
import type { QuotePreviewResult } from '#schemas/quotes.ts';

export const handler = endpoint(createQuote, async ({ caller, body }) => {
  const send = sendAmountOf(body.sendAmount);
  const corridor = corridorOf(body.corridor);
  const home = await homeWalletOf(caller.organizationId, body.integratorWalletId);
  if (!home.chain) throw new ApiError('no_route_for_chain', 'The home wallet is still being opened and has no network yet; try again shortly.');

  const now = new Date();
  const priced = await pricePayment({ corridor, send, homeNetwork: home.chain, now }).catch((error: unknown) => {
    if (error instanceof PricingUnavailable) throw new ApiError('quote_unavailable', 'The pricing source is momentarily unavailable; retry in a few seconds.');
    throw error;
  });
  const record = quoteRecord({
    organizationId: caller.organizationId,
    quoteId: newQuoteId(),
    corridor: { from: corridor.from, to: corridor.to, destinationCountry: corridor.destinationCountry },
    price: priced.price,
    expiresAt: priced.expiresAt,
    idempotencyKey: body.idempotencyKey ?? null,
    now,
  });
  await putQuote(record);

  const { price } = priced;
  const preview: QuotePreviewResult = {
    quoteId: record.quoteId,
    sendAmount: money(price.send, corridor.from),
    receiveAmount: money(price.receive, corridor.to),
    fee: money(price.fee, corridor.from),
    rate: rateJson(corridor.from, corridor.to, price.rate),
    provider: price.route.provider,
    routeKind: price.route.kind,
    estimatedSeconds: price.route.estimatedSeconds,
    expiresAt: record.expiresAt,
  };
  if (price.margin) preview.margin = { bps: price.margin.bps, amount: money(price.margin.amount, corridor.from) };
  if (price.networkFee !== null) preview.networkFee = money(price.networkFee, corridor.from);
  return ok(preview);
});
