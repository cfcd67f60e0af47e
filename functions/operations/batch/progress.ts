import pMap from 'p-map';
import { logger } from '#platform/logger.ts';
import { operationMoved } from '#platform/metrics.ts';
import { cancellationReasons, tableName, transactWrite, type TransactItem } from '#store/client.ts';
import { TransactionConflict } from '#store/ledger.ts';
import { complianceRecordItem, createTransactionItems, getComplianceHold, getTransaction, type TransactionRecord } from '#store/transactions.ts';
import { keys } from '#store/keys.ts';
import { markRecipientUsed } from '#store/recipients.ts';
import { storedPrice } from '#store/quotes.ts';
import {
  advanceBatch, batchCountMove, batchItemFailurePut, getBatch, readBatchCounts, readBatchItems, shardOf,
  type BatchItemRecord, type BatchRecord,
} from '#store/batches.ts';
import { formatDecimal } from '#domain/money.ts';
import { needsPersonStates } from '#domain/paymentStates.ts';
import { maskAccount } from '#domain/accountMask.ts';
import { screen } from '#domain/screening.ts';
import type { Price, PricingRefusal } from '#domain/pricing.ts';
import { findCorridor } from '#domain/corridors.ts';
import { operationProgress, type StepResult as KitStepResult, type OperationRef } from '#operations/kit/progress.ts';
import { startAfterCommit } from '#operations/kit/start.ts';
import { writeWithLedger } from '#operations/kit/ledgerWrite.ts';
import { nextPoll, type PollPolicy } from '#operations/kit/poll.ts';
import { PricingUnavailable, routePricer } from '#operations/quote/quoting.ts';
import type { BatchItemState, BatchState } from '#schemas/batches.ts';

/**
 * The steps of the batch workflow (statemachines/batch.asl.json). `StartItems` starts the next
 * chunk of items, each with one conditional transaction that creates its payment
 * `<batchId>:<itemRef>` FUNDED from the batch's hold (or ends it FAILED with its share released)
 * and moves the batch's count, then starts that payment's own workflow; it writes the batch's place
 * only after the chunk, so a re-run after a crash starts the same items again and finds each done.
 * `FollowItems` reads the counts until every item has ended. Each step answers a `report` line: the
 * execution history says which items started and which failed, without reading the table.
 *
 * Outcomes:
 *   more        a chunk was started and items remain: start the next
 *   retry       the FX source did not answer: wait, then start the same chunk
 *   started     every item has been started: follow them
 *   processing  items are still running: wait and follow again
 *   done        every item ended (COMPLETED), or the batch was refused, or it is left to the counts
 */
export type BatchOutcome = 'more' | 'retry' | 'started' | 'processing' | 'done';
export type StepResult = KitStepResult<BatchOutcome>;

export type BatchRef = OperationRef<'batchId'>;

/** Items started per StartItems: well within the Task's 60 s on a busy machine, 6 history events per 50 items. */
export const chunkSize = 50;
/** Items of a chunk started at once. */
const parallelStarts = 16;
export const retryWaitSeconds = 30;
/** Following (the kit's poll) backs off with the batch's age, 2 s to an hour; after this long the counts alone tell. */
export const maxFollowDays = 14;
export const followPoll: PollPolicy = { leastSeconds: 2, mostSeconds: 3600, maxAgeDays: maxFollowDays };

export const batchProgress = operationProgress<BatchRef, BatchRecord, BatchState, BatchOutcome, { state?: BatchState; startedThrough?: number }>({
  noun: 'batch',
  idOf: (ref) => ref.batchId,
  refOf: (batch) => ({ organizationId: batch.organizationId, batchId: batch.batchId }),
  find: (ref) => getBatch(ref.organizationId, ref.batchId),
  statusOf: (batch) => batch.state,
  write: (batch, change) => advanceBatch(batch, change),
  outcomeOf: (batch) => outcomeOf(batch),
});

function outcomeOf(batch: BatchRecord): BatchOutcome {
  if (batch.state === 'REJECTED' || batch.state === 'COMPLETED') return 'done';
  return batch.startedThrough < batch.itemCount ? 'more' : 'started';
}

type ItemResult = { itemRef: string; started: true } | { itemRef: string; started: false; failureReason: string };

export async function startItems(ref: BatchRef): Promise<StepResult> {
  const batch = await batchProgress.load(ref);
  if (batch.state !== 'ACCEPTED' && batch.state !== 'PROCESSING') return { outcome: 'done', report: `batch is ${batch.state}` };
  if (batch.startedThrough >= batch.itemCount) return { outcome: 'started', waitSeconds: 2, floorWaitSeconds: 1, report: `all ${batch.itemCount} items started` };

  const items = await readBatchItems(batch, batch.startedThrough, chunkSize);
  if (items.length === 0) throw new Error(`batch ${batch.batchId} has no items from ${batch.startedThrough} of ${batch.itemCount}`);
  let pricer: (send: bigint) => Price | PricingRefusal;
  try {
    const corridor = findCorridor(batch.corridor.from, batch.corridor.to, batch.corridor.destinationCountry)!;
    pricer = await routePricer({ corridor, provider: batch.provider, homeNetwork: batch.chain });
  } catch (error) {
    if (!(error instanceof PricingUnavailable)) throw error;
    return { outcome: 'retry', waitSeconds: retryWaitSeconds, report: `FX source unavailable; items from ${batch.startedThrough} wait` };
  }

  const results: ItemResult[] = await pMap(items, (item) => startItem(batch, item, pricer), { concurrency: parallelStarts });

  const through = batch.startedThrough + items.length;
  const moved = await batchProgress.move(batch, { state: 'PROCESSING', startedThrough: through });
  if (batch.state === 'ACCEPTED') operationMoved('batch', 'PROCESSING');
  const failed = results.filter((result): result is Extract<ItemResult, { started: false }> => !result.started);
  const first = items[0]!.itemRef;
  const last = items.at(-1)!.itemRef;
  const report = [
    `items ${batch.startedThrough + 1}–${through} of ${batch.itemCount} (${first} … ${last}): ${results.length - failed.length} started`,
    // At most 10 named: the line stays readable (and whole in the local runner's 1,000-character record); the batch's page has them all.
    ...(failed.length > 0 ? [`${failed.length} failed: ${failed.slice(0, 10).map((f) => `${f.itemRef} ${f.failureReason}`).join(', ')}${failed.length > 10 ? `, and ${failed.length - 10} more` : ''}`] : []),
  ].join('; ');
  // The first look at the items comes a moment after the last chunk started (never at once: they have only just begun).
  return { outcome: outcomeOf(moved), waitSeconds: 2, floorWaitSeconds: 1, report };
}

/**
 * One item: screened, priced on the batch's rail, then its payment created FUNDED from the batch's
 * hold with its count, in one conditional transaction; then its workflow started. An id that
 * already names a payment that is not this item's is never touched: the item fails and its share
 * goes back to the balance.
 */
async function startItem(batch: BatchRecord, item: BatchItemRecord, pricer: (send: bigint) => Price | PricingRefusal): Promise<ItemResult> {
  const now = new Date();
  const hit = screen({ originatorName: batch.originator?.name, beneficiaryName: item.beneficiary.name, recipientReference: item.recipientReference });
  if (hit) {
    const record = complianceRecordItem({
      organizationId: batch.organizationId, transactionId: item.transactionId, requestHash: batch.requestHash, party: hit.party,
      beneficiaryName: item.beneficiary.name, beneficiaryAccountMasked: maskAccount(item.beneficiary.account), corridor: batch.corridor,
      details: { batchId: batch.batchId }, now,
    });
    // Conditional like every record an item writes: a hold already at this id (a payment held under it) is never replaced.
    return failItem(batch, item, 'compliance_hold', 'held by screening before any value moved; compliance reviews it', [
      { Put: { TableName: tableName(), Item: record, ConditionExpression: 'attribute_not_exists(pk)' } },
    ]);
  }
  const priced = pricer(BigInt(item.send));
  if ('refused' in priced) return failItem(batch, item, priced.refused, priced.message);

  const at = now.toISOString();
  const tx: TransactionRecord = {
    organizationId: batch.organizationId,
    transactionId: item.transactionId,
    state: 'FUNDED',
    requestHash: batch.requestHash,
    corridor: batch.corridor,
    ...storedPrice(priced),
    quoteId: null,
    recipientReference: item.recipientReference,
    beneficiary: item.beneficiary,
    originator: batch.originator,
    payoutMode: 'regular',
    timeline: [
      { state: 'INITIATED', detail: `item ${item.itemRef} of batch ${batch.batchId}`, at },
      { state: 'QUOTED', detail: 'priced when the item started', at },
      { state: 'FUNDED', detail: `${formatDecimal(BigInt(item.send), 6)} USDC drawn from the batch's funding transfer`, at },
    ],
    submitAttempts: 0,
    batchId: batch.batchId,
    batchShard: shardOf(item.index),
    createdAt: at,
    updatedAt: at,
  };
  // The id must be free of a payment and of a screening hold alike: a payment held under this id has no payment item, only its hold.
  const holdFree: TransactItem = {
    ConditionCheck: { TableName: tableName(), Key: keys.complianceRecord(batch.organizationId, item.transactionId), ConditionExpression: 'attribute_not_exists(pk)' },
  };
  try {
    await transactWrite([...createTransactionItems(tx), batchCountMove(batch.organizationId, batch.batchId, shardOf(item.index), 'QUEUED', 'FUNDED'), holdFree] as TransactItem[]);
    operationMoved('payment', 'FUNDED');
  } catch (error) {
    const codes = cancellationReasons(error)?.map((reason) => reason.Code);
    if (codes?.at(-1) === 'ConditionalCheckFailed') return failHeldId(batch, item);
    if (codes?.[0] !== 'ConditionalCheckFailed') throw error;
    const existing = await getTransaction(batch.organizationId, item.transactionId);
    if (existing?.batchId !== batch.batchId) {
      return failItem(batch, item, 'transaction_id_in_use', `${item.transactionId} already names another payment, which was left untouched`);
    }
    // This item's own payment, from a run that stopped before writing the batch's place.
  }
  await startAfterCommit('payment', batch.organizationId, item.transactionId);
  if (item.recipientId) await markRecipientUsed(batch.organizationId, item.recipientId, now);
  return { itemRef: item.itemRef, started: true };
}

/** The item's id names a screening hold: this item's own (screening changed since an earlier run held it), or another payment's. */
async function failHeldId(batch: BatchRecord, item: BatchItemRecord): Promise<ItemResult> {
  const hold = await getComplianceHold(batch.organizationId, 'payment', item.transactionId);
  if (hold?.requestHash === batch.requestHash) return failItem(batch, item, 'compliance_hold', 'held by screening before any value moved; compliance reviews it');
  return failItem(batch, item, 'transaction_id_in_use', `${item.transactionId} already names another payment, which was left untouched`);
}

/** The item ends before it is a payment: its share of the hold back to the balance, its failure and count, in one transaction. */
async function failItem(batch: BatchRecord, item: BatchItemRecord, failureReason: string, detail: string, extra: TransactItem[] = []): Promise<ItemResult> {
  const send = BigInt(item.send);
  try {
    // Not written: released already, by a run that stopped before writing the batch's place.
    const written = await writeWithLedger(
      [
        batchItemFailurePut(batch.organizationId, batch.batchId, { index: item.index, failureReason, detail }),
        batchCountMove(batch.organizationId, batch.batchId, shardOf(item.index), 'QUEUED', 'FAILED'),
        ...extra,
      ] as TransactItem[],
      {
        organizationId: batch.organizationId,
        entryId: `batch:${batch.batchId}:item:${item.index}:release`,
        operation: { kind: 'batch', id: batch.batchId },
        legs: [
          { account: 'held', amount: -send },
          { account: 'available', amount: send },
        ],
        memo: `release item ${item.itemRef} of batch ${batch.batchId}: ${failureReason}`,
      },
    );
    if (written) logger.info('batch item failed before its payment', { batchId: batch.batchId, itemRef: item.itemRef, failureReason });
  } catch (error) {
    // Only a record of `extra` refused (the release and the failure were free): its id names another
    // payment's hold, which stays as it is; the item fails as an id in use, without that record.
    if (!(error instanceof TransactionConflict && error.extraCodes.slice(2).includes('ConditionalCheckFailed'))) throw error;
    return failItem(batch, item, 'transaction_id_in_use', `${item.transactionId} already names another payment, which was left untouched`);
  }
  return { itemRef: item.itemRef, started: false, failureReason };
}

const endStates: readonly BatchItemState[] = ['RECONCILED', 'REFUNDED', 'FAILED'];

/** Whether every item has ended, from the counts: what COMPLETED means. */
export function allItemsEnded(counts: Partial<Record<BatchItemState, number>>): boolean {
  return Object.entries(counts).every(([state, count]) => count === 0 || endStates.includes(state as BatchItemState));
}

export async function followItems(ref: BatchRef): Promise<StepResult> {
  const batch = await batchProgress.load(ref);
  // Every answer carries a report: the Task selects it.
  if (batch.state !== 'PROCESSING') return { ...batchProgress.outcomeOf(batch), report: `batch is ${batch.state}` };
  const counts = await readBatchCounts(batch);
  const report = Object.entries(counts).map(([state, count]) => `${state} ${count}`).join(', ');
  if (allItemsEnded(counts)) {
    await batchProgress.move(batch, { state: 'COMPLETED' });
    operationMoved('batch', 'COMPLETED');
    return { outcome: 'done', report };
  }
  const next = nextPoll(followPoll, Date.now() - Date.parse(batch.createdAt));
  // Items parked for a person can wait longer than a workflow should: the counts say COMPLETED when they end.
  if (next.overdue) return { outcome: 'done', report: `${report}; left to the counts after ${maxFollowDays} days` };
  const onlyParked = Object.keys(counts).every((state) => endStates.includes(state as BatchItemState) || needsPersonStates.includes(state as never));
  return { outcome: 'processing', waitSeconds: next.waitSeconds, floorWaitSeconds: 1, report: onlyParked ? `${report}; waiting on items parked for a person` : report };
}

/**
 * The workflow's Catch: the batch has no parked state (its items are payments, each parked on its
 * own), so a batch stopped by an unexpected error keeps its place and its hold; the error is logged
 * for operations, who redrive the execution (docs/decisions/090).
 */
export async function parkBatch(ref: BatchRef & { error?: unknown }): Promise<StepResult> {
  const batch = await batchProgress.load(ref);
  logger.error('batch workflow stopped by an unexpected error; redrive it', { batchId: ref.batchId, state: batch.state, startedThrough: batch.startedThrough, error: ref.error });
  return { outcome: 'done', report: `stopped at item ${batch.startedThrough} of ${batch.itemCount}` };
}
