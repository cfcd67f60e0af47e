import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, batchPutAll, conditionally, dynamo, putIfAbsent, queryPrefix, tableName, type TransactItem } from './client.ts';
import { keys, listSortKey, startingIndex } from './keys.ts';
import { decodeCursor, encodeCursor, readPage } from './cursors.ts';
import { applyMovement, type LedgerMovement } from './ledger.ts';
import { newOutboxEvent, outboxPut } from './outbox.ts';
import type { PaymentState } from '#domain/paymentStates.ts';
import type { Beneficiary, Originator } from '#schemas/transactions.ts';
import type { BatchItemState, BatchState } from '#schemas/batches.ts';

/**
 * Batch payouts (docs/decisions/090-batches.md). One batch is:
 * - the batch item `ORG#<org> / BATCH#<batchId>`: the batch as accepted, written in the same
 *   transaction as its one funding transfer (the whole total, available → held) and its
 *   `batch.accepted` event; listed newest first through gsi1 (`ORG#<org>#BATCH`);
 * - its items as accepted, `BATCHITEM#<batchId>#<generation>#<index>`, in body order, written
 *   before that commit and never changed (whoever writes them writes the same thing);
 * - its counter shards `BATCHCOUNT#<batchId>#<shard>`: how many items are in each state, moved in
 *   the same transaction that creates or moves an item's payment, so the counts are exact at every
 *   read and cost SHARDS items, whatever the batch's size. An item counted nowhere is QUEUED.
 * Each item becomes a payment `<batchId>:<itemRef>` (functions/store/transactions.ts) with
 * `batchId` and `batchShard` set; it draws from the batch's hold and moves its shard as it goes.
 */
export const batchEntity = 'batch';
export const batchItemEntity = 'batchItem';
export const batchCountEntity = 'batchCount';
export const batchItemFailureEntity = 'batchItemFailure';
export const batchIntakeEntity = 'batchIntake';

/** Counter shards per batch: contention on one counter item is spread over this many. */
export const batchShards = 16;
export const shardOf = (index: number) => index % batchShards;

/** The internal event that (re)starts a batch's workflow if the request that accepted it died first. */
export const batchAcceptedEvent = 'batch.accepted';

export interface BatchRecord {
  organizationId: string;
  batchId: string;
  /** Stored state; COMPLETED is also read from the counts (batchStateOf). */
  state: BatchState;
  requestHash: string;
  /** Which item drafts are this batch's (keys.batchItem). */
  generation: string;
  corridor: { from: string; to: string; destinationCountry: string };
  provider: string;
  chain: string;
  itemCount: number;
  /** USDC minor units: the sum of the items, held in one transfer. */
  total: string;
  originator: Originator | null;
  rejectedReason?: string;
  /** Items below this index have been started (their payment created, or failed): the workflow's place. */
  startedThrough: number;
  createdAt: string;
  updatedAt: string;
}

export interface BatchItemRecord {
  organizationId: string;
  batchId: string;
  index: number;
  itemRef: string;
  transactionId: string;
  /** USDC minor units. */
  send: string;
  recipientReference: string;
  beneficiary: Beneficiary;
  recipientId: string | null;
}

export interface BatchItemFailure {
  index: number;
  failureReason: string;
  detail: string;
}

const listKey = (organizationId: string) => `ORG#${organizationId}#BATCH`;
const countAttribute = (state: BatchItemState) => `n_${state}`;
const itemPrefix = (batch: Pick<BatchRecord, 'batchId' | 'generation'>) => `BATCHITEM#${batch.batchId}#${batch.generation}#`;

export const batchItemId = (batchId: string, itemRef: string) => `${batchId}:${itemRef}`;

function stripKeys<T>(item: Record<string, unknown>): T {
  const { pk: _pk, sk: _sk, entity: _entity, gsi1pk: _g1, gsi1sk: _g2, gsi2pk: _g3, gsi2sk: _g4, ...record } = item;
  return record as T;
}

export async function getBatch(organizationId: string, batchId: string): Promise<BatchRecord | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.batch(organizationId, batchId), ConsistentRead: true }));
  return Item ? stripKeys<BatchRecord>(Item) : undefined;
}

/**
 * The items as accepted, written before the batch's commit (the same content whoever writes them).
 * All 40 calls of a 1,000-item batch at once: the intake waits one round trip for them, not five
 * (on a busy table each round trip is a wait in its queue); the partition sees the same 1,000 writes
 * either way, and throttled ones come back as unprocessed and are sent again.
 */
export async function putBatchItems(batch: Pick<BatchRecord, 'organizationId' | 'batchId' | 'generation'>, items: BatchItemRecord[]): Promise<void> {
  await batchPutAll(items.map((item) => ({ ...keys.batchItem(batch.organizationId, batch.batchId, batch.generation, item.index), entity: batchItemEntity, ...item })), Math.ceil(items.length / 25));
}

function batchItem(batch: BatchRecord) {
  return {
    ...keys.batch(batch.organizationId, batch.batchId),
    entity: batchEntity,
    ...batch,
    gsi1pk: listKey(batch.organizationId),
    gsi1sk: listSortKey(batch.createdAt, batch.batchId),
    // Until its workflow starts the first items, the sweeper can find it.
    ...(batch.state === 'ACCEPTED' ? { gsi2pk: startingIndex.pk, gsi2sk: startingIndex.sk(batch.createdAt, 'batch', batch.organizationId, batch.batchId) } : {}),
  };
}

/**
 * The batch and its one funding transfer in one transaction, with the event that starts its
 * workflow. InsufficientFunds (nothing written) when the balance cannot cover it; TransactionConflict
 * when a batch of that id already exists.
 */
export async function commitBatch(batch: BatchRecord, hold: LedgerMovement): Promise<void> {
  const event = newOutboxEvent(batchAcceptedEvent, batch.organizationId, { batchId: batch.batchId }, new Date(batch.createdAt));
  await applyMovement(hold, [{ Put: { TableName: tableName(), Item: batchItem(batch), ConditionExpression: 'attribute_not_exists(pk)' } }, outboxPut(event)] as TransactItem[]);
}

/**
 * Claims the intake of a batchId for one request (docs/decisions/151): true when this request now
 * holds it, false while another request holds an unexpired claim. Only a saving, never a guard: the
 * batch's own commit (attribute_not_exists) decides which request's batch is stored, so two intakes
 * after a lapsed lease still store one batch. The lease outlives the holder's function timeout.
 */
export async function claimBatchIntake(organizationId: string, batchId: string, holder: string, leaseMs: number, now = Date.now()): Promise<boolean> {
  return conditionally(
    dynamo().send(
      new PutCommand({
        TableName: tableName(),
        // ttl: DynamoDB removes a claim left behind (a holder that committed or died) a day later.
        Item: { ...keys.batchIntake(organizationId, batchId), entity: batchIntakeEntity, holder, expiresAt: now + leaseMs, ttl: Math.ceil(now / 1000) + 86_400 },
        ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
        ExpressionAttributeValues: { ':now': now },
      }),
    ),
  );
}

/** Gives the claim up (the holder refused the batch): the next request with this batchId need not wait out the lease. */
export async function releaseBatchIntake(organizationId: string, batchId: string, holder: string): Promise<void> {
  await conditionally(
    dynamo().send(
      new DeleteCommand({ TableName: tableName(), Key: keys.batchIntake(organizationId, batchId), ConditionExpression: 'holder = :holder', ExpressionAttributeValues: { ':holder': holder } }),
    ),
  );
}

/** A batch refused as a whole (nothing held): stored so the same batchId answers the same. False when one already exists. */
export async function putRejectedBatch(batch: BatchRecord): Promise<boolean> {
  return putIfAbsent(batchItem(batch));
}

/**
 * Moves the batch's stored state and its place among the items, conditional on both as read: the
 * batch as written, or undefined when another delivery moved it first. Leaving ACCEPTED takes it off
 * the sweeper's index.
 */
export async function advanceBatch(batch: BatchRecord, change: { state?: BatchState; startedThrough?: number }, now = new Date()): Promise<BatchRecord | undefined> {
  const next: BatchRecord = { ...batch, ...change, updatedAt: now.toISOString() };
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.batch(batch.organizationId, batch.batchId),
        UpdateExpression: `SET #state = :state, startedThrough = :through, updatedAt = :now${batch.state === 'ACCEPTED' && next.state !== 'ACCEPTED' ? ' REMOVE gsi2pk, gsi2sk' : ''}`,
        ConditionExpression: '#state = :fromState AND startedThrough = :fromThrough',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':state': next.state, ':through': next.startedThrough, ':now': next.updatedAt, ':fromState': batch.state, ':fromThrough': batch.startedThrough,
        },
      }),
    );
    return next;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

export async function listBatches(organizationId: string, page: { limit?: number; cursor?: string }): Promise<{ batches: BatchRecord[]; nextCursor: string | null }> {
  const { items, nextCursor } = await readPage(
    {
      scope: { list: 'batches', organizationId },
      index: 'gsi1v2',
      partition: listKey(organizationId),
    },
    page,
    'whole items',
  );
  return { batches: items.map((item) => stripKeys<BatchRecord>(item)), nextCursor };
}

/** Items from `from` on, in body order, at most `limit` (the workflow's next chunk). */
export async function readBatchItems(batch: BatchRecord, from: number, limit: number): Promise<BatchItemRecord[]> {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': `ORG#${batch.organizationId}`,
        ':from': keys.batchItem(batch.organizationId, batch.batchId, batch.generation, from).sk,
        ':to': keys.batchItem(batch.organizationId, batch.batchId, batch.generation, 9999).sk,
      },
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (Items ?? []).map((item) => stripKeys<BatchItemRecord>(item));
}

/** Items per state, exact: the shards summed; QUEUED is what no shard counts yet. */
export async function readBatchCounts(batch: Pick<BatchRecord, 'organizationId' | 'batchId' | 'itemCount'>): Promise<Partial<Record<BatchItemState, number>>> {
  const shards = await queryPrefix(`ORG#${batch.organizationId}`, `BATCHCOUNT#${batch.batchId}#`, { ConsistentRead: true });
  const counts: Partial<Record<BatchItemState, number>> = {};
  let counted = 0;
  for (const shard of shards) {
    for (const [attribute, value] of Object.entries(shard)) {
      if (!attribute.startsWith('n_')) continue;
      const state = attribute.slice(2) as BatchItemState;
      counts[state] = (counts[state] ?? 0) + Number(value);
      counted += Number(value);
    }
  }
  counts.QUEUED = batch.itemCount - counted;
  for (const state of Object.keys(counts) as BatchItemState[]) if (counts[state] === 0) delete counts[state];
  return counts;
}

/** The shard update that moves one item from `from` (or from QUEUED) to `to`, for the transaction that moves it. */
export function batchCountMove(organizationId: string, batchId: string, shard: number, from: BatchItemState, to: BatchItemState) {
  const names: Record<string, string> = { '#to': countAttribute(to) };
  const values: Record<string, number> = { ':one': 1 };
  let expression = 'ADD #to :one';
  if (from !== 'QUEUED') {
    names['#from'] = countAttribute(from);
    values[':minus'] = -1;
    expression += ', #from :minus';
  }
  return {
    Update: {
      TableName: tableName(),
      Key: keys.batchCount(organizationId, batchId, shard),
      UpdateExpression: `${expression} SET entity = :entity`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':entity': batchCountEntity },
    },
  };
}

/** The Put of an item that ended before it became a payment, for the transaction that releases its share. */
export function batchItemFailurePut(organizationId: string, batchId: string, failure: BatchItemFailure) {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...keys.batchItemFailure(organizationId, batchId, failure.index), entity: batchItemFailureEntity, ...failure },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export interface BatchItemRow {
  item: BatchItemRecord;
  payment?: { state: PaymentState; failure?: string };
  failure?: BatchItemFailure;
}

/**
 * A page of the batch's items in body order, each with its payment (or the failure that kept it
 * from becoming one): reads proportional to the page. The cursor names the last item's index.
 */
export async function readItemsPage(batch: BatchRecord, page: { limit?: number; cursor?: string }): Promise<{ rows: BatchItemRow[]; nextCursor: string | null }> {
  const scope = { list: `batch:${batch.batchId}:items`, organizationId: batch.organizationId };
  let from = 0;
  if (page.cursor) {
    const named = await decodeCursor(scope, page.cursor);
    if (!/^\d{1,4}$/.test(named)) throw new Error('an item cursor names an index');
    from = Number(named) + 1;
  }
  const limit = page.limit ?? 50;
  const items = from < batch.itemCount && batch.state !== 'REJECTED' ? await readBatchItems(batch, from, limit) : [];
  const payments = new Map<string, Record<string, unknown>>();
  if (items.length > 0) {
    const found = await batchGetAll(items.map((item) => keys.transaction(batch.organizationId, item.transactionId)));
    for (const payment of found) if (payment.batchId === batch.batchId) payments.set(String(payment.transactionId), payment);
  }
  const failures = new Map<number, BatchItemFailure>();
  const unpaid = items.filter((item) => !payments.has(item.transactionId));
  if (unpaid.length > 0) {
    for (const failure of await batchGetAll(unpaid.map((item) => keys.batchItemFailure(batch.organizationId, batch.batchId, item.index)))) {
      const record = stripKeys<BatchItemFailure>(failure);
      failures.set(record.index, record);
    }
  }
  const rows = items.map((item) => {
    const payment = payments.get(item.transactionId);
    return {
      item,
      ...(payment ? { payment: { state: payment.state as PaymentState, failure: payment.failure as string | undefined } } : {}),
      ...(failures.has(item.index) ? { failure: failures.get(item.index)! } : {}),
    };
  });
  const last = items.at(-1);
  const nextCursor = last && last.index + 1 < batch.itemCount && items.length === limit ? await encodeCursor(scope, String(last.index)) : null;
  return { rows, nextCursor };
}
