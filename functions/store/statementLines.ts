import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetAll, dynamo, sortKeyPrefix, tableName, type TransactItem } from './client.ts';
import { keys } from './keys.ts';

/**
 * Incoming wires as the house bank reports them (functions/operations/onRamp/wireDeposits.ts), and the api
 * on-ramps waiting for one.
 *
 * A statement line is global (`STMTLINE#<statementLineId>`): a parked line names no organization,
 * and its id is what makes ingesting the same line twice change nothing (conditional Put, written
 * in the same transaction as the deposit it starts or the on-ramp it is attributed to). Parked
 * lines are also listed on gsi1 `STMTLINE#parked`, oldest first: the manual reconciliation queue.
 *
 * An open marker (`ORG#<org> / ONRAMP_OPEN#<currency>#<createdAt>#<id>`) exists while an api wire
 * on-ramp can still take a wire; it is deleted in the transaction that moves the on-ramp on.
 */
export type StatementLineDisposition = 'pending' | 'attributed' | 'parked';

export interface StatementLineRecord {
  statementLineId: string;
  currency: string;
  /** Fiat minor units, a string of digits. */
  amount: string;
  /** What the payer wrote, as the bank gave it (bounded). */
  referenceText: string;
  receivedAt: string;
  disposition: StatementLineDisposition;
  /** Why it parked, or what it did. */
  detail: string;
  organizationId: string | null;
  onRampId: string | null;
}

const entity = 'statementLine';
const parkedList = 'STMTLINE#parked';

function itemOf(line: StatementLineRecord): Record<string, unknown> {
  return {
    ...keys.statementLine(line.statementLineId),
    entity,
    ...line,
    ...(line.disposition === 'parked' ? { gsi1pk: parkedList, gsi1sk: `${line.receivedAt}#${line.statementLineId}` } : {}),
  };
}

/** The Put to write with the deposit or attribution the line causes; fails when the line was ingested already. */
export function statementLinePut(line: StatementLineRecord): TransactItem {
  return { Put: { TableName: tableName(), Item: itemOf(line), ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * The Put that takes a PARKED line out of the reconciliation queue (an operator attributed it), to
 * write with the deposit or attribution it causes; fails when the line is not parked (any more).
 */
export function parkedStatementLineReplace(line: StatementLineRecord): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: itemOf(line),
      ConditionExpression: 'disposition = :parked',
      ExpressionAttributeValues: { ':parked': 'parked' },
    },
  };
}

export async function getStatementLine(statementLineId: string): Promise<StatementLineRecord | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.statementLine(statementLineId), ConsistentRead: true }));
  return Item ? recordOf(Item) : undefined;
}

/** Parks the line; a line already stored (this one before, or a racing ingestion) is answered instead. */
export async function parkStatementLine(line: StatementLineRecord): Promise<StatementLineRecord> {
  try {
    await dynamo().send(new PutCommand(statementLinePut(line).Put as never));
    return line;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const stored = await getStatementLine(line.statementLineId);
    if (!stored) throw error;
    return stored;
  }
}

/** The manual reconciliation queue, oldest first (ops and tests): the index names the lines, the table holds them. */
export async function listParkedStatementLines(limit = 100): Promise<StatementLineRecord[]> {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi1v2',
      KeyConditionExpression: 'gsi1pk = :pk',
      ExpressionAttributeValues: { ':pk': parkedList },
      ProjectionExpression: 'pk, sk',
      Limit: limit,
    }),
  );
  const lines = new Map<unknown, Record<string, unknown>>((await batchGetAll((Items ?? []) as { pk: string; sk: string }[])).map((item) => [item.pk, item]));
  return (Items ?? []).flatMap<Record<string, unknown>>((key) => lines.get(key.pk) ?? []).map(recordOf);
}

function recordOf(item: Record<string, unknown>): StatementLineRecord {
  const { pk: _pk, sk: _sk, entity: _entity, gsi1pk: _g1, gsi1sk: _g2, ...line } = item;
  return line as unknown as StatementLineRecord;
}

// ---- Open api on-ramps ----------------------------------------------------------------------

export interface OpenOnRampMarker {
  organizationId: string;
  currency: string;
  createdAt: string;
  onRampId: string;
}

export function openOnRampPut(marker: OpenOnRampMarker): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...keys.openOnRamp(marker.organizationId, marker.currency, marker.createdAt, marker.onRampId), entity: 'openOnRamp', ...marker },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export function openOnRampDelete(marker: OpenOnRampMarker): TransactItem {
  return { Delete: { TableName: tableName(), Key: keys.openOnRamp(marker.organizationId, marker.currency, marker.createdAt, marker.onRampId) } };
}

/** The organization's open api on-ramps in this currency, oldest first: the first one waiting takes the wire. */
export async function listOpenOnRamps(organizationId: string, currency: string, limit = 25): Promise<OpenOnRampMarker[]> {
  const { pk, sk } = keys.openOnRamp(organizationId, currency, '', '');
  const prefix = sk.slice(0, sk.length - 1); // `ONRAMP_OPEN#<currency>#`
  const { KeyConditionExpression, ExpressionAttributeValues, withPrefix } = sortKeyPrefix(pk, prefix);
  const { Items } = await dynamo().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression, ExpressionAttributeValues, ConsistentRead: true, Limit: limit }),
  );
  return withPrefix(Items ?? []).map((item) => ({
    organizationId: String(item.organizationId),
    currency: String(item.currency),
    createdAt: String(item.createdAt),
    onRampId: String(item.onRampId),
  }));
}

export async function deleteOpenOnRamp(marker: OpenOnRampMarker): Promise<void> {
  await dynamo().send(new DeleteCommand(openOnRampDelete(marker).Delete as never));
}
