import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, putIfAbsent, tableName, type TransactItem } from './client.ts';
import { keys } from './keys.ts';

/**
 * Off-ramp quotes: `ORG#<org> / OFFRAMP_QUOTE#<oq_…>`, bound to one amount and one beneficiary,
 * single use (`usedBy` set, conditionally, in the transaction that creates the off-ramp) and removed
 * by TTL a day after expiry. Kept apart from payment quotes (`QUOTE#`), whose price shape they do
 * not share, so a payment can never be handed an off-ramp quote. Amounts are strings of minor units.
 */
export const offRampQuoteEntity = 'offRampQuote';

export interface OffRampQuoteRecord {
  organizationId: string;
  quoteId: string;
  beneficiaryId: string;
  /** USDC minor units pulled. */
  amount: string;
  currency: string;
  fee: string;
  deliveryFee: string;
  /** Payout-currency minor units the beneficiary receives. */
  net: string;
  fxBufferBps: number | null;
  expiresAt: string;
  usedBy?: string;
  createdAt: string;
}

export async function putOffRampQuote(record: OffRampQuoteRecord): Promise<void> {
  const ttl = Math.floor(Date.parse(record.expiresAt) / 1000) + 24 * 3600;
  if (!(await putIfAbsent({ ...keys.offRampQuote(record.organizationId, record.quoteId), entity: offRampQuoteEntity, ...record, ttl }))) {
    throw new Error(`off-ramp quote ${record.quoteId} already exists`);
  }
}

export async function getOffRampQuote(organizationId: string, quoteId: string): Promise<OffRampQuoteRecord | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.offRampQuote(organizationId, quoteId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, entity: _entity, ttl: _ttl, ...record } = Item;
  return record as OffRampQuoteRecord;
}

/** The Update that spends a quote, inside the transaction that creates the off-ramp: unused and not expired. */
export function spendOffRampQuoteItem(organizationId: string, quoteId: string, offRampId: string, now: Date): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.offRampQuote(organizationId, quoteId),
      UpdateExpression: 'SET usedBy = :offRampId',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedBy) AND expiresAt > :now',
      ExpressionAttributeValues: { ':offRampId': offRampId, ':now': now.toISOString() },
    },
  };
}
