import { notFound } from '#platform/errors.ts';
import { getBatch, listBatches, readBatchCounts, readItemsPage, type BatchItemRow, type BatchRecord } from '#store/batches.ts';
import { money } from '#domain/money.ts';
import { allItemsEnded } from './progress.ts';
import type { BatchDetail, BatchItem, BatchItemState, BatchList, BatchState, BatchSummary } from '#schemas/batches.ts';

/**
 * The batch as GET shows it. The state is exact at every read: a batch whose items have all ended
 * is COMPLETED from that moment, whether or not its workflow has written so yet; a batch whose
 * first items run is PROCESSING. Both come from the counter shards, a read of constant size.
 */
export function batchStateOf(batch: BatchRecord, counts: Partial<Record<BatchItemState, number>>): BatchState {
  if (batch.state === 'REJECTED' || batch.state === 'COMPLETED') return batch.state;
  if (allItemsEnded(counts)) return 'COMPLETED';
  return (counts.QUEUED ?? 0) < batch.itemCount ? 'PROCESSING' : batch.state;
}

function summaryView(batch: BatchRecord, state: BatchState): BatchSummary {
  return {
    batchId: batch.batchId,
    state,
    corridor: batch.corridor,
    provider: batch.provider,
    itemCount: batch.itemCount,
    totalSendAmount: money(BigInt(batch.total), batch.corridor.from),
    createdAt: batch.createdAt,
  };
}

function itemView(batch: BatchRecord, row: BatchItemRow): BatchItem {
  const view: BatchItem = {
    itemRef: row.item.itemRef,
    transactionId: row.item.transactionId,
    state: row.payment?.state ?? (row.failure ? 'FAILED' : 'QUEUED'),
    sendAmount: money(BigInt(row.item.send), batch.corridor.from),
    recipientReference: row.item.recipientReference,
  };
  const failureReason = row.payment?.failure ?? row.failure?.failureReason;
  if (failureReason && view.state === 'FAILED') view.failureReason = failureReason;
  return view;
}

/** A batch still moving has its state read from its counts; an ended or refused one is as stored. */
async function stateNow(batch: BatchRecord): Promise<{ state: BatchState; counts: Partial<Record<BatchItemState, number>> }> {
  if (batch.state === 'REJECTED') return { state: 'REJECTED', counts: {} };
  const counts = await readBatchCounts(batch);
  return { state: batchStateOf(batch, counts), counts };
}

export async function batchDetail(organizationId: string, batchId: string, page: { limit?: number; cursor?: string }): Promise<BatchDetail> {
  const batch = await getBatch(organizationId, batchId);
  if (!batch) throw notFound('batch');
  const [{ state, counts }, items] = await Promise.all([stateNow(batch), readItemsPage(batch, page)]);
  return {
    ...summaryView(batch, state),
    chain: batch.chain,
    items: counts,
    updatedAt: batch.updatedAt,
    page: { items: items.rows.map((row) => itemView(batch, row)), nextCursor: items.nextCursor, hasMore: items.nextCursor !== null },
    ...(batch.rejectedReason ? { rejectedReason: batch.rejectedReason } : {}),
  };
}

export async function batchList(organizationId: string, page: { limit?: number; cursor?: string }): Promise<BatchList> {
  const { batches, nextCursor } = await listBatches(organizationId, page);
  const rows = await Promise.all(
    batches.map(async (batch) => summaryView(batch, batch.state === 'ACCEPTED' || batch.state === 'PROCESSING' ? batchStateOf(batch, await readBatchCounts(batch)) : batch.state)),
  );
  return { batches: rows, count: rows.length, nextCursor, hasMore: nextCursor !== null };
}
