import { GetCommand, QueryCommand, ScanCommand, TransactGetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, putIfAbsent, queryAll, setFields, tableName } from './client.ts';
import { keys, listSortKey, startingIndex } from './keys.ts';
import type { StoredPrice } from './quotes.ts';
import { readPage } from './cursors.ts';
import { batchCountMove } from './batches.ts';
import { newOutboxEvent, outboxPut } from './outbox.ts';
import { money } from '#domain/money.ts';
import { isRunning, type PaymentState } from '#domain/paymentStates.ts';
import type { StatementRow } from '#domain/statements.ts';
import type { Beneficiary, Originator, TransactionListItem, TransactionStatus } from '#schemas/transactions.ts';

/**
 * Payment items: `ORG#<org> / TX#<transactionId>`, listed newest first through gsi1
 * (`ORG#<org>#TX`, `<createdAt>#<transactionId>`); each with its statement line (`feeLinePut`). Every change of state is one conditional
 * update on the state it expects (so a task delivered twice changes nothing the second time),
 * appends to the timeline, and writes its outbox event in the same transaction.
 */
export const transactionEntity = 'transaction';

export interface TimelineEntry {
  state: PaymentState;
  detail?: string;
  at: string;
}

/** The price fields (`send`, `fee`, … `receive`: what was quoted to the recipient) are the quote's. */
export interface TransactionRecord extends StoredPrice {
  organizationId: string;
  transactionId: string;
  state: PaymentState;
  /** SHA-256 of the request body as accepted: the same key with another body is refused. */
  requestHash: string;
  corridor: { from: string; to: string; destinationCountry: string };
  quoteId: string | null;
  recipientReference: string;
  beneficiary: Beneficiary;
  originator: Originator | null;
  payoutMode: 'regular' | 'instant';
  timeline: TimelineEntry[];
  failure?: string;
  /** What the provider reports it paid, destination minor units. */
  paid?: string;
  providerPayoutId?: string;
  submitAttempts: number;
  /** Set when a batch funded this payment (one hold for the whole batch): every move also moves the batch's count (store/batches.ts). */
  batchId?: string;
  batchShard?: number;
  createdAt: string;
  updatedAt: string;
}

/** Outbox event types for the states integrators are told about (contract: Events). */
const announcedStates: Partial<Record<PaymentState, string>> = {
  PAID_OUT: 'transaction.paid_out',
  RECONCILED: 'transaction.reconciled',
  REFUNDED: 'transaction.refunded',
  IN_DOUBT: 'transaction.in_doubt',
};

/** The internal event that (re)starts a payment's workflow if the request that funded it died first. */
export const transactionFundedEvent = 'transaction.funded';

const listKey = (organizationId: string) => `ORG#${organizationId}#TX`;

export function statusView(tx: TransactionRecord): TransactionStatus {
  const view: TransactionStatus = {
    transactionId: tx.transactionId,
    running: isRunning(tx.state),
    state: tx.state,
    provider: tx.provider,
    payoutMode: tx.payoutMode,
    timeline: tx.timeline.map(({ state, detail }) => (detail === undefined ? { state } : { state, detail })),
  };
  if (tx.failure) view.failure = tx.failure;
  if (tx.margin) view.margin = { bps: tx.margin.bps, amount: money(BigInt(tx.margin.amount), tx.corridor.from) };
  if (tx.paid !== undefined) {
    view.receiveAmount = money(BigInt(tx.paid), tx.corridor.to);
    const difference = BigInt(tx.paid) - BigInt(tx.receive);
    if (difference !== 0n) {
      view.payoutDelta = {
        quoted: money(BigInt(tx.receive), tx.corridor.to),
        paid: money(BigInt(tx.paid), tx.corridor.to),
        difference: money(difference, tx.corridor.to),
      };
    }
  }
  return view;
}

export function listItemView(tx: Pick<TransactionRecord, 'transactionId' | 'corridor' | 'send' | 'recipientReference' | 'createdAt'>): TransactionListItem {
  return {
    transactionId: tx.transactionId,
    corridor: tx.corridor,
    sendAmount: money(BigInt(tx.send), tx.corridor.from),
    recipientReference: tx.recipientReference,
    createdAt: tx.createdAt,
  };
}

// ---- The stored shape (decision 138) ------------------------------------------------------------
// A payment item is written at every step of its life, so its size is paid at each: kept under the
// 1 KB a write unit covers, each write costs half. Timeline entries are stored as one string each
// (`<state>|<at in epoch ms, base 36>[|<detail>]`) rather than a map of three named attributes, and
// the price's and request's empty fields (null) are left out, and so is `organizationId`, which the
// partition key names. Items written before keep maps, nulls and the id; fromItem reads both, so
// every reader sees the same record.

type StoredTimelineEntry = string | TimelineEntry;

function storedTimeline(entries: TimelineEntry[]): StoredTimelineEntry[] {
  return entries.map((entry) => {
    const ms = Date.parse(entry.at);
    // Only a time that reads back as the same string is shortened (toISOString's form, which every writer uses).
    if (!Number.isFinite(ms) || ms < 0 || new Date(ms).toISOString() !== entry.at) return entry;
    return `${entry.state}|${ms.toString(36)}${entry.detail === undefined ? '' : `|${entry.detail}`}`;
  });
}

function timelineEntryOf(stored: StoredTimelineEntry): TimelineEntry {
  if (typeof stored !== 'string') return stored;
  const [state, at, ...detail] = stored.split('|');
  const entry: TimelineEntry = { state: state as PaymentState, at: new Date(parseInt(at!, 36)).toISOString() };
  return detail.length > 0 ? { ...entry, detail: detail.join('|') } : entry;
}

/** Fields left out of the stored item when null, and given back as null. */
const nullableFields = ['networkFee', 'margin', 'originator', 'quoteId'] as const;

function storedRecord(tx: TransactionRecord): Record<string, unknown> {
  const { organizationId: _organizationId, ...rest } = tx;
  const stored: Record<string, unknown> = { ...rest, timeline: storedTimeline(tx.timeline) };
  for (const name of nullableFields) if (stored[name] === null) delete stored[name];
  return stored;
}

/** The Put that creates a funded payment, and its `transaction.funded` event, for the funding transaction. */
export function createTransactionItems(tx: TransactionRecord) {
  const event = newOutboxEvent(transactionFundedEvent, tx.organizationId, { transactionId: tx.transactionId }, new Date(tx.createdAt));
  return [
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.transaction(tx.organizationId, tx.transactionId),
          entity: transactionEntity,
          ...storedRecord(tx),
          gsi1pk: listKey(tx.organizationId),
          gsi1sk: listSortKey(tx.createdAt, tx.transactionId),
          // Until its workflow moves it out of FUNDED (transitionItems), the sweeper can find it.
          ...(tx.state === 'FUNDED' ? { gsi2pk: startingIndex.pk, gsi2sk: startingIndex.sk(tx.createdAt, 'payment', tx.organizationId, tx.transactionId) } : {}),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    feeLinePut(tx),
    outboxPut(event),
  ];
}

export async function getTransaction(organizationId: string, transactionId: string): Promise<TransactionRecord | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.transaction(organizationId, transactionId), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

/**
 * The payment and its compliance record under one key, in one round trip. TransactGetItems, not
 * BatchGetItem: it answers both items or fails, so an unprocessed key can never pass for an
 * absent one (which would let a retry be treated as a new payment).
 */
export async function getTransactionAndHold(
  organizationId: string,
  transactionId: string,
): Promise<{ transaction?: TransactionRecord; hold?: { requestHash: string } }> {
  const table = tableName();
  const { Responses } = await dynamo().send(
    new TransactGetCommand({
      TransactItems: [
        { Get: { TableName: table, Key: keys.transaction(organizationId, transactionId) } },
        { Get: { TableName: table, Key: keys.complianceRecord(organizationId, transactionId) } },
      ],
    }),
  );
  const [transaction, hold] = (Responses ?? []).map((response) => response.Item);
  return {
    transaction: transaction ? fromItem(transaction) : undefined,
    hold: hold ? { requestHash: String(hold.requestHash) } : undefined,
  };
}

function fromItem(item: Record<string, unknown>): TransactionRecord {
  const { pk, sk: _sk, entity: _entity, gsi1pk: _g1, gsi1sk: _g2, gsi2pk: _g3, gsi2sk: _g4, ...record } = item;
  record.organizationId ??= String(pk).slice('ORG#'.length);
  for (const name of nullableFields) record[name] ??= null;
  record.timeline = (record.timeline as StoredTimelineEntry[]).map(timelineEntryOf);
  return record as unknown as TransactionRecord;
}

export interface Transition {
  to: PaymentState;
  detail?: string;
  failure?: string;
  /** Further attributes to set with the state (e.g. `paid`, `providerPayoutId`). */
  set?: Partial<Pick<TransactionRecord, 'paid' | 'providerPayoutId' | 'submitAttempts'>>;
  /**
   * States passed on the way to `to` within this one write, in order (a payout paid at once:
   * SETTLING and PAID_OUT on the way to RECONCILED): each gets its timeline entry, and its event
   * when announced, as if it had been written on its own.
   */
  via?: { state: PaymentState; detail?: string }[];
  now?: Date;
}

/**
 * The conditional update from the state `tx` is in to `transition.to`, with its timeline entry
 * and (for announced states) its outbox event, carrying the status as GET will show it.
 */
export function transitionItems(tx: TransactionRecord, transition: Transition) {
  const now = transition.now ?? new Date();
  const at = now.toISOString();
  const entries: TimelineEntry[] = [...(transition.via ?? []), { state: transition.to, detail: transition.detail }].map(({ state, detail }) =>
    detail ? { state, detail, at } : { state, at },
  );
  const next: TransactionRecord = {
    ...tx,
    ...transition.set,
    state: transition.to,
    timeline: [...tx.timeline, ...entries],
    updatedAt: at,
  };
  if (transition.failure) next.failure = transition.failure;

  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':from': tx.state, ':to': transition.to, ':entry': storedTimeline(entries), ':now': next.updatedAt };
  const sets = ['#state = :to', 'timeline = list_append(timeline, :entry)', 'updatedAt = :now'];
  const extra: Record<string, unknown> = { ...transition.set };
  if (transition.failure) extra.failure = transition.failure;
  setFields(extra, { names, values, sets });
  const items: Record<string, unknown>[] = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.transaction(tx.organizationId, tx.transactionId),
        // Leaving FUNDED takes the payment off the sweeper's index: its workflow runs.
        UpdateExpression: `SET ${sets.join(', ')}${tx.state === 'FUNDED' ? ' REMOVE gsi2pk, gsi2sk' : ''}`,
        ConditionExpression: '#state = :from',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  // A batch's item moves its batch's count with it, so the batch's counts are exact at every read.
  if (tx.batchId !== undefined && tx.batchShard !== undefined) items.push(batchCountMove(tx.organizationId, tx.batchId, tx.batchShard, tx.state, transition.to));
  // The fee is realized with the capture this transition travels with (functions/operations/payment/progress.ts).
  if (transition.to === 'RECONCILED') items.push(feeLinePut(next));
  // Each announced state passed gets its event, carrying the status as GET would have shown it there.
  entries.forEach((entry, index) => {
    const eventType = announcedStates[entry.state];
    const then: TransactionRecord = { ...next, state: entry.state, timeline: next.timeline.slice(0, tx.timeline.length + index + 1) };
    if (eventType) items.push(outboxPut(newOutboxEvent(eventType, tx.organizationId, statusView(then), now)));
  });
  return { items, next };
}

export async function listTransactions(
  organizationId: string,
  page: { limit?: number; cursor?: string },
): Promise<{ rows: TransactionListItem[]; nextCursor: string | null }> {
  const { items, nextCursor } = await readPage(
    {
      scope: { list: 'transactions', organizationId },
      index: 'gsi1v2',
      partition: listKey(organizationId),
    },
    page,
    { attributes: ['transactionId', 'corridor', 'send', 'recipientReference', 'createdAt'] },
  );
  return { rows: items.map((item) => listItemView(item as unknown as TransactionRecord)), nextCursor };
}

/**
 * A payment's statement line (decision 096): `ORG#<org> / FEELINE#<createdAt>#<transactionId>`, the
 * few fields a line shows, written with the payment and written again, whole, in the transaction that
 * captures its hold at RECONCILED (`feeRealized`). Whole rather than updated: a payment from before
 * lines existed gets its line there too, and the backfill's conditional Put then leaves it alone.
 */
export const feeLineEntity = 'feeLine';

function feeLinePut(tx: TransactionRecord) {
  const line: StatementRow = {
    transactionId: tx.transactionId,
    corridor: tx.corridor,
    send: tx.send,
    fee: tx.fee,
    feeRealized: tx.state === 'RECONCILED',
    recipientReference: tx.recipientReference,
    createdAt: tx.createdAt,
  };
  return { Put: { TableName: tableName(), Item: { ...keys.feeLine(tx.organizationId, tx.createdAt, tx.transactionId), entity: feeLineEntity, ...line } } };
}

/**
 * The lines of the payments initiated in `[from, to)` (ISO instants in UTC with milliseconds), oldest
 * first, a page at a time: one key range of the organization's partition. createdAt is always
 * `toISOString()` (24 characters), so string order is time order, and `BETWEEN FEELINE#<from> AND
 * FEELINE#<to>` is the half-open window: a line stamped exactly `to` sorts as `…<to>#<id>`, after the
 * upper bound, one stamped `from` inside. What it reads grows with the window's payments, never with
 * the others; the caller stops pulling pages as soon as it has read enough (a statement over its size
 * bound, decision 096), and `pageLimit` (asked before each page) caps how many lines the next one reads.
 */
export async function* statementRowPages(
  organizationId: string,
  period: { from: string; to: string },
  pageLimit: () => number | undefined = () => undefined,
): AsyncGenerator<StatementRow[]> {
  const { pk } = keys.organization(organizationId);
  let startKey: Record<string, unknown> | undefined;
  do {
    const limit = pageLimit();
    const page = await dynamo().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': pk, ':from': `FEELINE#${period.from}`, ':to': `FEELINE#${period.to}` },
        ProjectionExpression: 'transactionId, corridor, send, fee, feeRealized, recipientReference, createdAt',
        ExclusiveStartKey: startKey,
        ...(limit === undefined ? {} : { Limit: Math.max(1, Math.ceil(limit)) }),
      }),
    );
    startKey = page.LastEvaluatedKey;
    yield (page.Items ?? []) as unknown as StatementRow[];
  } while (startKey);
}

/**
 * Once, for a table written before statement lines: a line for every payment that has none (ops CLI
 * `statements backfill`, `npm start` with DATA_DIR). A migration, so a scan; a line already there
 * (written meanwhile by a reconciliation) is left alone, and running it again writes nothing.
 */
export async function backfillFeeLines(): Promise<{ lines: number }> {
  let lines = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({ TableName: tableName(), FilterExpression: 'entity = :transaction', ExpressionAttributeValues: { ':transaction': transactionEntity }, ExclusiveStartKey: startKey }),
    );
    for (const item of page.Items ?? []) {
      if (await putIfAbsent(feeLinePut(fromItem(item)).Put.Item)) lines += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { lines };
}

/**
 * Compliance records: `ORG#<org> / COMPLIANCE#<transactionId>` for a payment,
 * `COMPLIANCE#<operation>#<id>` for an off-ramp beneficiary registration, an off-ramp or a
 * withdrawal (decision 078). Written when screening holds the request; the operation never
 * starts, and the same key answers the same hold from then on. The beneficiary account (or
 * destination address) is kept masked (contract rule 5).
 */
export const complianceRecordEntity = 'complianceRecord';

export type HeldOperation = 'payment' | 'beneficiary' | 'offramp' | 'withdrawal';

/** Written once: a concurrent identical request may have written it first, and the record stands either way. */
export async function putComplianceRecord(item: ReturnType<typeof complianceRecordItem>): Promise<void> {
  await putIfAbsent(item);
}

/** The hold of an operation other than a payment (a payment's is read with the payment, getTransactionAndHold). */
export async function getComplianceHold(organizationId: string, operation: HeldOperation, id: string): Promise<{ requestHash: string | null } | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.complianceRecord(organizationId, id, operation), ConsistentRead: true }),
  );
  return Item ? { requestHash: typeof Item.requestHash === 'string' ? Item.requestHash : null } : undefined;
}

export function complianceRecordItem(input: {
  organizationId: string;
  transactionId: string;
  /** Payment when absent. */
  operation?: HeldOperation;
  /** Null for a beneficiary registration: it has no key to be retried with. */
  requestHash: string | null;
  party: string;
  beneficiaryName: string | null;
  beneficiaryAccountMasked: string | null;
  corridor: { to: string; destinationCountry: string } | null;
  /** What else names the held request, never an unmasked account: beneficiaryId, currency, network, masked address. */
  details?: Record<string, string>;
  now: Date;
}) {
  const operation = input.operation ?? 'payment';
  return {
    ...keys.complianceRecord(input.organizationId, input.transactionId, operation),
    entity: complianceRecordEntity,
    organizationId: input.organizationId,
    operation,
    transactionId: input.transactionId,
    requestHash: input.requestHash,
    screenedParty: input.party,
    beneficiaryName: input.beneficiaryName,
    beneficiaryAccount: input.beneficiaryAccountMasked,
    corridor: input.corridor,
    ...input.details,
    decision: 'held',
    createdAt: input.now.toISOString(),
  };
}
