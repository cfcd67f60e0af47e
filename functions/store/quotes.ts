import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, putIfAbsent, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { Price } from '#domain/pricing.ts';

/**
 * Quote items: `ORG#<org> / QUOTE#<quoteId>`. A quote is the locked price of one payment:
 * single use (`usedBy` is set, conditionally, in the same transaction that funds the payment)
 * and removed by TTL a day after it expires. Amounts are kept as strings of minor units.
 */
export const quoteEntity = 'quote';

/**
 * A price as stored (strings of minor units, the rate as its two integers): a quote keeps it, and
 * the payment that accepts the quote (or is priced at acceptance) keeps the very same fields.
 */
export interface StoredPrice {
  /** USDC minor units. */
  send: string;
  fee: string;
  networkFee: string | null;
  fundingNetwork: string;
  rate: { numerator: string; denominator: string };
  margin: { bps: number; amount: string } | null;
  /** Destination minor units. */
  receive: string;
  provider: string;
  routeKind: 'orchestrator' | 'owned';
}

export function storedPrice(price: Price): StoredPrice {
  return {
    send: price.send.toString(),
    fee: price.fee.toString(),
    networkFee: price.networkFee === null ? null : price.networkFee.toString(),
    fundingNetwork: price.fundingNetwork,
    rate: { numerator: price.rate.numerator.toString(), denominator: price.rate.denominator.toString() },
    margin: price.margin ? { bps: price.margin.bps, amount: price.margin.amount.toString() } : null,
    receive: price.receive.toString(),
    provider: price.route.provider,
    routeKind: price.route.kind,
  };
}

/** The stored price of a quote, without the quote's own fields. */
export function priceOfQuote(quote: QuoteRecord): StoredPrice {
  const { send, fee, networkFee, fundingNetwork, rate, margin, receive, provider, routeKind } = quote;
  return { send, fee, networkFee, fundingNetwork, rate, margin, receive, provider, routeKind };
}

export interface QuoteRecord extends StoredPrice {
  organizationId: string;
  quoteId: string;
  corridor: { from: string; to: string; destinationCountry: string };
  estimatedSeconds: number;
  expiresAt: string;
  /** When given, the payment accepting the quote must carry this key. */
  idempotencyKey: string | null;
  usedBy?: string;
  createdAt: string;
}

export function quoteRecord(input: {
  organizationId: string;
  quoteId: string;
  corridor: QuoteRecord['corridor'];
  price: Price;
  expiresAt: Date;
  idempotencyKey: string | null;
  now: Date;
}): QuoteRecord {
  const { price } = input;
  return {
    organizationId: input.organizationId,
    quoteId: input.quoteId,
    corridor: input.corridor,
    ...storedPrice(price),
    estimatedSeconds: price.route.estimatedSeconds,
    expiresAt: input.expiresAt.toISOString(),
    idempotencyKey: input.idempotencyKey,
    createdAt: input.now.toISOString(),
  };
}

export async function putQuote(record: QuoteRecord): Promise<void> {
  const ttl = Math.floor(Date.parse(record.expiresAt) / 1000) + 24 * 3600;
  if (!(await putIfAbsent({ ...keys.quote(record.organizationId, record.quoteId), entity: quoteEntity, ...record, ttl }))) {
    throw new Error(`quote ${record.quoteId} already exists`);
  }
}

/** Another organization's quote is simply absent: the key is scoped by the caller's organization. */
export async function getQuote(organizationId: string, quoteId: string): Promise<QuoteRecord | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.quote(organizationId, quoteId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, entity: _entity, ttl: _ttl, ...record } = Item;
  return record as QuoteRecord;
}

/** The Update that spends a quote, inside the transaction that funds the payment. */
export function useQuoteItem(organizationId: string, quoteId: string, transactionId: string) {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.quote(organizationId, quoteId),
      UpdateExpression: 'SET usedBy = :transactionId',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedBy)',
      ExpressionAttributeValues: { ':transactionId': transactionId },
    },
  };
}
