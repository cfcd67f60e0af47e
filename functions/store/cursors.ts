import { createHmac, timingSafeEqual } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '#platform/errors.ts';
import { config } from '#platform/config.ts';
import { standingInFor } from '#platform/awsStandIns.ts';
import { stageSecret } from '#platform/stageSecret.ts';
import { CursorMaxLength } from '#schemas/common.ts';
import { tableIndex, type IndexName } from '#contract/table.ts';
import { batchGetAll, dynamo, tableName } from './client.ts';
import { generatedKey } from './settings.ts';

/**
 * Opaque pagination cursors and the one page reader every list uses (docs/data-model.md,
 * "Cursors"; docs/decisions/005, 070). Every paged list is one index partition sorted by
 * `listSortKey(createdAt, id)`, so the last row of a page is named by that sort key alone (unique in
 * the list: it ends with the id), and the next page is the rows below it. A cursor is that sort key
 * and an HMAC over it, the list and the organization: a forged or altered cursor, or one of
 * another list or organization, is 400 `invalid_cursor` rather than an empty or foreign page.
 * Its length depends only on the sort key's length, which the id bounds: see `cursorLength`.
 */
export interface CursorScope {
  /** The list, e.g. `transactions` or `batch:<id>:items`. */
  list: string;
  organizationId: string;
}

/**
 * The HMAC keys, the one cursors are signed with first: CURSOR_SECRET (the tests), else the secret at
 * CURSOR_SECRET_ARN in its current and previous versions, so a rotation refuses no cursor issued
 * under the previous key (docs/decisions/167), else, locally, a key made once and kept in the table.
 */
function cursorKeys(): Promise<Buffer[]> {
  // Checked at each use, not each load: locally one process serves every function, where in AWS
  // each function's containers read the secret themselves.
  const { CURSOR_SECRET, CURSOR_SECRET_ARN } = config();
  if (CURSOR_SECRET) return Promise.resolve([Buffer.from(CURSOR_SECRET, 'utf8')]);
  if (CURSOR_SECRET_ARN) return stageSecret(CURSOR_SECRET_ARN, 'the cursor key');
  return standingInFor({ action: 'secretsmanager:GetSecretValue', resourceVariable: 'CURSOR_SECRET_ARN' }, async () => [await generatedKey('cursorSecret')]);
}

/** Bound to the list and the organization, which the cursor does not carry. Version 2: the sort key alone. */
function sign(secret: Buffer, scope: CursorScope, payload: string): string {
  return createHmac('sha256', secret).update(`cursor:2\n${scope.list}\n${scope.organizationId}\n${payload}`).digest('base64url');
}

/** The length of the cursor naming a sort key of `bytes` UTF-8 bytes: base64url of them, a dot, a 43-character HMAC. */
export function cursorLength(bytes: number): number {
  return Math.ceil((bytes * 4) / 3) + 1 + 43;
}

/** The cursor of the row whose list sort key is `sortKey`. A list whose sort keys could overflow the contract's bound is a bug, thrown as such. */
export async function encodeCursor(scope: CursorScope, sortKey: string): Promise<string> {
  const payload = Buffer.from(sortKey, 'utf8').toString('base64url');
  const cursor = `${payload}.${sign((await cursorKeys())[0]!, scope, payload)}`;
  if (cursor.length > CursorMaxLength) throw new Error(`a cursor of ${cursor.length} characters for list ${scope.list}: longer than ${CursorMaxLength}`);
  return cursor;
}

/** The list sort key the cursor names; 400 `invalid_cursor` for anything the service did not issue for this list. */
export async function decodeCursor(scope: CursorScope, cursor: string): Promise<string> {
  const invalid = new ApiError('invalid_cursor', 'The cursor was not issued by this service for this list; start again without a cursor.');
  const [payload, signature, extra] = cursor.split('.');
  if (!payload || !signature || extra !== undefined || cursor.length > CursorMaxLength) throw invalid;
  const presented = Buffer.from(signature);
  let matched = false;
  for (const key of await cursorKeys()) {
    const expected = Buffer.from(sign(key, scope, payload));
    matched = (expected.length === presented.length && timingSafeEqual(expected, presented)) || matched;
  }
  if (!matched) throw invalid;
  return Buffer.from(payload, 'base64url').toString('utf8');
}

/** A list the service pages through, newest first: one partition of an index sorted by `listSortKey`. */
export interface PagedList {
  scope: CursorScope;
  index: IndexName;
  /** The index partition holding the list's rows. */
  partition: string;
}

/**
 * What a page's rows hold: attributes the index projects (its keys, the table's, `projects`), or
 * the whole items, read from the table by key after the index names them (decision 127).
 */
export type PageRows = { attributes: readonly string[] } | 'whole items';

/**
 * One page of a list, and the cursor of the next one (null only when DynamoDB saw no more rows).
 * A page after a cursor is the key range below the cursor's sort key (`sort < :after`, newest
 * first), not the partition resumed from an ExclusiveStartKey: sort keys are unique in a list (they
 * end with the row's id), so both name the same rows and DynamoDB answers both as one seek, but
 * DynamoDB Local walks the partition from its top to an ExclusiveStartKey (a page at depth
 * 100,000 took 3.8 times the first page's time) and seeks a key range (docs/decisions/136).
 */
export async function readPage(
  list: PagedList,
  page: { limit?: number; cursor?: string },
  rows: PageRows,
): Promise<{ items: Record<string, unknown>[]; nextCursor: string | null }> {
  const index = tableIndex(list.index);
  const attributes = rows === 'whole items' ? ['pk', 'sk'] : rows.attributes;
  // An attribute the index does not project would come back absent, not as an error: a bug, said as one.
  const unprojected = attributes.filter((name) => !['pk', 'sk', index.partitionKey, index.sortKey, ...index.projects].includes(name));
  if (unprojected.length > 0) throw new Error(`list ${list.scope.list} asks ${list.index} for ${unprojected.join(', ')}, which it does not project`);
  const after = page.cursor ? await decodeCursor(list.scope, page.cursor) : undefined;
  const names = Object.fromEntries(attributes.map((name, at) => [`#a${at}`, name]));
  const { Items, LastEvaluatedKey } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: index.name,
      KeyConditionExpression: after === undefined ? '#partition = :partition' : '#partition = :partition AND #sort < :after',
      ExpressionAttributeNames: { '#partition': index.partitionKey, ...(after === undefined ? {} : { '#sort': index.sortKey }), ...names },
      ExpressionAttributeValues: { ':partition': list.partition, ...(after === undefined ? {} : { ':after': after }) },
      ProjectionExpression: Object.keys(names).join(', '),
      ScanIndexForward: false,
      Limit: page.limit ?? 50,
    }),
  );
  const nextCursor = LastEvaluatedKey ? await encodeCursor(list.scope, String(LastEvaluatedKey[index.sortKey])) : null;
  if (rows !== 'whole items') return { items: Items ?? [], nextCursor };
  return { items: await inPageOrder((Items ?? []) as { pk: string; sk: string }[]), nextCursor };
}

/** The whole items of a page's keys, in the page's order (a batch read answers in any order). */
async function inPageOrder(rows: { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
  const found = new Map<string, Record<string, unknown>>((await batchGetAll(rows.map(({ pk, sk }) => ({ pk, sk })))).map((item) => [`${String(item.pk)}\n${String(item.sk)}`, item]));
  // An item the index still named but the table no longer holds is left out, as a later page read would.
  return rows.flatMap<Record<string, unknown>>(({ pk, sk }) => found.get(`${pk}\n${sk}`) ?? []);
}
