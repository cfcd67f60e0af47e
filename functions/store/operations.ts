import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { cancellationReasons, dynamo, setFields, tableName, transactWrite, type TransactItem } from './client.ts';
import { readPage } from './cursors.ts';
import { keys, listSortKey, startingIndex } from './keys.ts';
import { applyMovement, MovementAlreadyApplied, TransactionConflict, type LedgerMovement } from './ledger.ts';
import { newOutboxEvent, outboxPut } from './outbox.ts';
import { operationMoved } from '#platform/metrics.ts';

/**
 * Treasury operations: on-ramps, withdrawals, off-ramps and on-chain deposits. Each is one item,
 * `ORG#<org> / OP#<kind>#<id>`, listed newest first through gsi1 (`ORG#<org>#<kind>`,
 * `<createdAt>#<id>`), with one claim item `OPID#<kind>#<id>` that makes the id global: the
 * contract's `idempotency_key_conflict` is a key another organization already used.
 *
 * Every change of status is one conditional update on the status it expects (a workflow task
 * delivered twice changes nothing the second time), appends to the timeline, and writes its
 * outbox event and its ledger movement in the same transaction: the money moves with the status
 * that explains it, or neither happens. The domain modules (functions/operations/onRamp/intake.ts, ...) own
 * the statuses and the views; this module only stores.
 */
export type OperationKind = 'onramp' | 'withdrawal' | 'offramp' | 'chainDeposit';

export interface OperationTimelineEntry {
  status: string;
  at: string;
  detail?: string;
}

/** What every operation carries; each kind adds its own fields at the top level. */
export interface OperationBase {
  organizationId: string;
  kind: OperationKind;
  id: string;
  status: string;
  /** SHA-256 of the request as accepted (functions/domain/requestHash.ts); null when no request started it. */
  requestHash: string | null;
  timeline: OperationTimelineEntry[];
  failure?: string;
  createdAt: string;
  updatedAt: string;
}

/** An event to write with a change: `data` is what the matching GET answers. */
export interface OperationEvent {
  type: string;
  data: unknown;
}

const operationEntity = 'operation';
const listKey = (organizationId: string, kind: OperationKind) => `ORG#${organizationId}#${kind}`;

export type CreateOutcome<R> =
  | { created: R }
  /** The id was already taken by this organization: the stored record (compare its requestHash). */
  | { existing: R }
  /** The id was taken by another organization; nothing of theirs is returned. */
  | { otherOrganization: true };

/**
 * Creates the operation once. `ledger` (a movement) and `extraItems` are written in the same
 * transaction; an `event` is written to the outbox with it. A second create of the same id answers
 * what is stored; a racing create of the same id loses cleanly to the first.
 */
/** The status a kind is created in while its workflow has not yet run (kinds created with `starting`). */
const startingStatuses: Partial<Record<OperationKind, string>> = { withdrawal: 'INITIATED' };

/** Operations on the sweeper's index created before `before` (ISO time), oldest first: at most `limit`. */
export async function listStartingOperations(before: string, limit = 100): Promise<{ kind: string; organizationId: string; id: string; createdAt: string }[]> {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2v2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk < :before',
      ExpressionAttributeValues: { ':pk': startingIndex.pk, ':before': before },
      ProjectionExpression: 'gsi2sk',
      Limit: limit,
    }),
  );
  return (Items ?? []).map((item) => {
    const [createdAt = '', kind = '', organizationId = '', ...id] = String(item.gsi2sk).split('#');
    return { createdAt, kind, organizationId, id: id.join('#') };
  });
}

export async function createOperation<R extends OperationBase>(
  record: R,
  options: {
    event?: OperationEvent;
    ledger?: LedgerMovement;
    extraItems?: TransactItem[];
    /** A subset list (gsi2) that sorts like the whole one: a cursor names a row by its list sort key. */
    gsi2?: { pk: string };
    /** On the sweeper's index (keys.ts startingIndex) until the workflow moves it; for kinds without another gsi2 use. */
    starting?: boolean;
  } = {},
): Promise<CreateOutcome<R>> {
  const gsi2 = options.starting
    ? { pk: startingIndex.pk, sk: startingIndex.sk(record.createdAt, record.kind, record.organizationId, record.id) }
    : options.gsi2 && { pk: options.gsi2.pk, sk: listSortKey(record.createdAt, record.id) };
  const table = tableName();
  const items: TransactItem[] = [
    {
      Put: {
        TableName: table,
        Item: { ...keys.operationClaim(record.kind, record.id), entity: 'operationClaim', organizationId: record.organizationId, createdAt: record.createdAt },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      Put: {
        TableName: table,
        Item: {
          ...keys.operation(record.organizationId, record.kind, record.id),
          entity: operationEntity,
          ...record,
          gsi1pk: listKey(record.organizationId, record.kind),
          gsi1sk: listSortKey(record.createdAt, record.id),
          ...(gsi2 ? { gsi2pk: gsi2.pk, gsi2sk: gsi2.sk } : {}),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...(options.extraItems ?? []),
  ];
  if (options.event) items.push(outboxPut(newOutboxEvent(options.event.type, record.organizationId, options.event.data, new Date(record.createdAt))) as TransactItem);
  try {
    if (options.ledger) await applyMovement(options.ledger, items);
    else await transactWrite(items);
    operationMoved(record.kind, record.status);
    return { created: record };
  } catch (error) {
    const claimTaken =
      (error instanceof TransactionConflict && error.extraCodes[0] === 'ConditionalCheckFailed') ||
      cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed' ||
      error instanceof MovementAlreadyApplied;
    if (!claimTaken) throw error;
    const existing = await getOperation<R>(record.organizationId, record.kind, record.id);
    if (existing) return { existing };
    const claim = await dynamo().send(new GetCommand({ TableName: table, Key: keys.operationClaim(record.kind, record.id), ConsistentRead: true }));
    if (claim.Item && claim.Item.organizationId !== record.organizationId) return { otherOrganization: true };
    throw error;
  }
}

/** The organization's operation, strongly consistent; undefined when absent or another organization's. */
export async function getOperation<R extends OperationBase>(organizationId: string, kind: OperationKind, id: string): Promise<R | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.operation(organizationId, kind, id), ConsistentRead: true }),
  );
  return Item ? fromItem<R>(Item) : undefined;
}

/** Whoever holds an id of a kind: the organization, or undefined when nobody does. */
export async function claimantOf(kind: OperationKind, id: string): Promise<string | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.operationClaim(kind, id), ConsistentRead: true }));
  return Item ? String(Item.organizationId) : undefined;
}

function fromItem<R>(item: Record<string, unknown>): R {
  const { pk: _pk, sk: _sk, entity: _entity, gsi1pk: _g1, gsi1sk: _g2, gsi2pk: _g3, gsi2sk: _g4, ...record } = item;
  return record as R;
}

export interface OperationTransition<R extends OperationBase> {
  to: R['status'];
  detail?: string;
  failure?: string;
  /** Further top-level attributes to set with the status. */
  set?: Partial<Omit<R, keyof OperationBase>>;
  /** Builds the outbox event from the record as it will be after the change. */
  event?: (next: R) => OperationEvent | undefined;
  /** Moved in the same transaction as the status. */
  ledger?: LedgerMovement;
  /** Leave the timeline alone (a status that only updates fields, e.g. a retry counter). */
  silent?: boolean;
  /** Further items written in the same transaction (after the status update, so its index stays 0). */
  extraItems?: TransactItem[];
  now?: Date;
}

/**
 * The items of one move from the status the operation is in (as `record` says) to `transition.to`:
 * the conditional update on that status (first, so its cancellation code is the first), its
 * outbox event, the caller's further items; and the record as it will be. The kit writes them with
 * the transition's ledger movement (functions/operations/kit/storedOperation.ts).
 */
export function operationTransitionItems<R extends OperationBase>(record: R, transition: OperationTransition<R>): { items: TransactItem[]; next: R } {
  const now = transition.now ?? new Date();
  const entry: OperationTimelineEntry = { status: transition.to, at: now.toISOString() };
  if (transition.detail) entry.detail = transition.detail;
  const next = {
    ...record,
    ...transition.set,
    status: transition.to,
    timeline: transition.silent ? record.timeline : [...record.timeline, entry],
    updatedAt: now.toISOString(),
  } as R;
  if (transition.failure) next.failure = transition.failure;

  const names: Record<string, string> = { '#status': 'status' };
  const values: Record<string, unknown> = { ':from': record.status, ':to': transition.to, ':now': next.updatedAt };
  const sets = ['#status = :to', 'updatedAt = :now'];
  if (!transition.silent) {
    values[':entry'] = [entry];
    sets.push('timeline = list_append(timeline, :entry)');
  }
  const extra: Record<string, unknown> = { ...transition.set };
  if (transition.failure) extra.failure = transition.failure;
  setFields(extra, { names, values, sets });
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.operation(record.organizationId, record.kind, record.id),
        // The first move out of a starting status leaves the sweeper's index (a no-op for items never on it).
        UpdateExpression: `SET ${sets.join(', ')}${startingStatuses[record.kind] === record.status && transition.to !== record.status ? ' REMOVE gsi2pk, gsi2sk' : ''}`,
        ConditionExpression: '#status = :from',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
  ];
  const event = transition.event?.(next);
  if (event) items.push(outboxPut(newOutboxEvent(event.type, record.organizationId, event.data, now)) as TransactItem);
  items.push(...(transition.extraItems ?? []));
  return { items, next };
}

/**
 * One page, newest first. `index` gsi2 with its partition lists a subset kept under its own key
 * (e.g. on-ramps of one origin): a filter would make pages short and cursors slow.
 */
export async function listOperations<R extends OperationBase>(
  organizationId: string,
  kind: OperationKind,
  page: { limit?: number; cursor?: string },
  subset?: { gsi2pk: string; list: string },
): Promise<{ rows: R[]; nextCursor: string | null }> {
  const { items, nextCursor } = await readPage(
    {
      scope: { list: subset?.list ?? kind, organizationId },
      index: subset ? 'gsi2v2' : 'gsi1v2',
      partition: subset ? subset.gsi2pk : listKey(organizationId, kind),
    },
    page,
    'whole items',
  );
  return { rows: items.map((item) => fromItem<R>(item)), nextCursor };
}
