import { AsyncLocalStorage } from 'node:async_hooks';
import { ConditionalCheckFailedException, DynamoDBClient, TransactionCanceledException, TransactionConflictException, type CancellationReason } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, DynamoDBDocumentClient, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, type QueryCommandInput, type TransactWriteCommandInput, type TranslateConfig } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { config } from '#platform/config.ts';
import { isContentionCancellation } from '#platform/errors.ts';
import { invocationSignal } from '#platform/invocation.ts';

/**
 * One DynamoDB connection pool per process (per Lambda container), built on first use so that
 * the local launcher and tests can point it at DynamoDB Local before anything runs.
 * Every call is counted: the bench reads the counter to report calls per request.
 */
let documentClient: DynamoDBDocumentClient | undefined;
let exactClient: DynamoDBDocumentClient | undefined;
const baseClients: DynamoDBClient[] = [];
let calls = 0;

/** Per-request tally: concurrent requests in one process each count only their own calls. */
const requestTally = new AsyncLocalStorage<{ calls: number }>();

const marshallOptions = { removeUndefinedValues: true, convertEmptyValues: false };

/**
 * The client settings for DynamoDB at `endpoint` (DynamoDB Local): the endpoint and placeholder
 * credentials (it checks none, but the SDK signs every request and needs some). None without an
 * endpoint: in AWS the SDK finds the region's endpoint and the role's credentials itself.
 */
export function dynamoEndpointSettings(endpoint: string | undefined): { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } } {
  return endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {};
}

/**
 * A base client per document client: DynamoDBDocumentClient.from writes its translate options
 * onto the base client's shared config, so two document clients over one base client would
 * both unmarshal the way the last one asked. The second base client reuses the first one's
 * request handler, so both still share one connection pool.
 */
function documentClientWith(unmarshallOptions: NonNullable<TranslateConfig['unmarshallOptions']>): DynamoDBDocumentClient {
  const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
  const base = new DynamoDBClient({
    region: AWS_REGION,
    ...dynamoEndpointSettings(DYNAMODB_ENDPOINT),
    maxAttempts: 3,
    ...(baseClients[0] ? { requestHandler: baseClients[0].config.requestHandler } : {}),
  });
  base.middlewareStack.add(
    (next) => async (args) => {
      calls += 1;
      const tally = requestTally.getStore();
      if (tally) tally.calls += 1;
      return next(args);
    },
    { step: 'initialize', name: 'countDynamoCalls' },
  );
  base.middlewareStack.add(
    (next, context) => async (args) => {
      if (process.env.COUNT_CAPACITY !== '1') return next(args);
      const command = (context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as Record<string, unknown>;
      if (capacityCommands.has(command)) input.ReturnConsumedCapacity ??= 'TOTAL';
      const inspected = callInspector ? await callInspector(command, input) : undefined;
      let result;
      try {
        result = await next(args);
      } catch (error) {
        await inspected?.();
        recordCapacity({ command, input, readUnits: 0, writeUnits: 0, itemsRead: 0, failed: true });
        throw error;
      }
      await inspected?.();
      const output = result.output as ReadOutput & { ConsumedCapacity?: ConsumedCapacity | ConsumedCapacity[] };
      const consumed = output.ConsumedCapacity;
      let readUnits = 0;
      let writeUnits = 0;
      for (const entry of consumed === undefined ? [] : Array.isArray(consumed) ? consumed : [consumed]) {
        const units = entry.CapacityUnits ?? 0;
        // DynamoDB fills Read/WriteCapacityUnits on some answers only; otherwise the operation says which.
        if (entry.ReadCapacityUnits !== undefined || entry.WriteCapacityUnits !== undefined) {
          readUnits += entry.ReadCapacityUnits ?? 0;
          writeUnits += entry.WriteCapacityUnits ?? 0;
        } else if (readCommands.has(command)) readUnits += units;
        else writeUnits += units;
      }
      recordCapacity({ command, input, readUnits, writeUnits, itemsRead: itemsReadOf(command, output), failed: false });
      return result;
    },
    { step: 'initialize', name: 'countConsumedCapacity' },
  );
  if (!baseClients[0]) abandonedWithItsInvocation(base.config.requestHandler as unknown as SendsRequests);
  baseClients.push(base);
  return DynamoDBDocumentClient.from(base, { marshallOptions, unmarshallOptions });
}

interface SendsRequests {
  handle(request: unknown, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}

/**
 * Every call sent for an invocation whose time ran out is aborted with it, queued or in flight
 * (#platform/invocation.ts), unless the caller gave a signal of its own. The shared request handler
 * is wrapped once: every client of the process sends through it.
 */
function abandonedWithItsInvocation(handler: SendsRequests): void {
  const handle = handler.handle.bind(handler);
  handler.handle = (request, options = {}) => {
    if (options.abortSignal) return handle(request, options);
    const signal = invocationSignal();
    if (!signal) return handle(request, options);
    return handle(request, { ...options, abortSignal: signal }).catch((error: unknown) => {
      if (signal.aborted) abandonedCalls += 1;
      throw error;
    });
  };
}

let abandonedCalls = 0;

/** Calls this process gave up because their invocation's time ran out: what a test waits on to know an abandoned chain has ended. */
export function abandonedCallCount(): number {
  return abandonedCalls;
}

/** Numbers are read as JS numbers: fine for counters and epoch seconds, never for money. */
export function dynamo(): DynamoDBDocumentClient {
  documentClient ??= documentClientWith({ wrapNumbers: false });
  return documentClient;
}

/**
 * Numbers are read as NumberValue (the exact decimal string DynamoDB sent): for money, which
 * must never pass through a float. Writes through either client take bigint exactly.
 */
export function dynamoExact(): DynamoDBDocumentClient {
  exactClient ??= documentClientWith({ wrapNumbers: true });
  return exactClient;
}

export function tableName(): string {
  return config().TABLE_NAME;
}

// ---- Consumed capacity (the bench): with COUNT_CAPACITY=1 every call asks DynamoDB for its
// ConsumedCapacity (TOTAL) and the units are summed here, reads and writes apart. Off by default.

interface ConsumedCapacity {
  CapacityUnits?: number;
  ReadCapacityUnits?: number;
  WriteCapacityUnits?: number;
}

/** One call as counted: what was asked and the units DynamoDB reported (0 when it failed: errors carry none). */
export interface CapacityRecord {
  /** Operation name without `Command`: PutItem, TransactWriteItems, … */
  command: string;
  /** The command's input as sent by our code (document-client shape when sent through it). */
  input: Record<string, unknown>;
  readUnits: number;
  writeUnits: number;
  /** Items the call read: a Query's or Scan's ScannedCount (before any filter), the items a Get answered. */
  itemsRead: number;
  failed: boolean;
}

interface ReadOutput {
  ScannedCount?: number;
  Item?: unknown;
  Responses?: unknown[] | Record<string, unknown[]>;
}

function itemsReadOf(command: string, output: ReadOutput): number {
  if (command === 'Query' || command === 'Scan') return output.ScannedCount ?? 0;
  if (command === 'GetItem') return output.Item ? 1 : 0;
  if (command === 'BatchGetItem') return Object.values(output.Responses ?? {}).reduce((sum: number, items) => sum + (Array.isArray(items) ? items.length : 0), 0);
  if (command === 'TransactGetItems') return (output.Responses as { Item?: unknown }[] | undefined ?? []).filter((response) => response.Item).length;
  return 0;
}

const capacityCommands = new Set([
  'GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan', 'BatchGetItem', 'BatchWriteItem',
  'TransactGetItems', 'TransactWriteItems', 'ExecuteStatement', 'BatchExecuteStatement', 'ExecuteTransaction',
]);
const readCommands = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
const capacity = { calls: 0, failedCalls: 0, readUnits: 0, writeUnits: 0 };
const capacityObservers = new Set<(record: CapacityRecord) => void>();

function recordCapacity(record: CapacityRecord): void {
  capacity.calls += 1;
  if (record.failed) capacity.failedCalls += 1;
  capacity.readUnits += record.readUnits;
  capacity.writeUnits += record.writeUnits;
  for (const observer of capacityObservers) observer(record);
}

/** Units consumed by this process's calls while COUNT_CAPACITY=1 (a copy). */
export function dynamoConsumedCapacity(): { calls: number; failedCalls: number; readUnits: number; writeUnits: number } {
  return { ...capacity };
}

/**
 * Awaited before every call counted while COUNT_CAPACITY=1, and what it answers after the call
 * (succeeded or failed), before the observers see it: the bench reads the written items before and
 * after a write with a client of its own, to count their units as AWS bills them. Off by default.
 */
export type CallInspector = (command: string, input: Record<string, unknown>) => Promise<(() => Promise<void>) | undefined>;
let callInspector: CallInspector | undefined;

/** Sets the one inspector; answers the function that removes it. */
export function inspectCalls(inspector: CallInspector): () => void {
  callInspector = inspector;
  return () => {
    if (callInspector === inspector) callInspector = undefined;
  };
}

/** Calls `observer` with every call counted while COUNT_CAPACITY=1; answers the function that stops it. */
export function observeConsumedCapacity(observer: (record: CapacityRecord) => void): () => void {
  capacityObservers.add(observer);
  return () => capacityObservers.delete(observer);
}

/** Calls made by this process since it started (read by the bench and by request logs). */
export function dynamoCallCount(): number {
  return calls;
}

/**
 * Start counting the DynamoDB calls of the current request (everything that follows in this
 * async context); read the tally from the returned object.
 */
export function countRequestCalls(): { calls: number } {
  const tally = { calls: 0 };
  requestTally.enterWith(tally);
  return tally;
}

/** Drop the clients so the next call builds them from the current configuration. */
export function resetDynamoClient(): void {
  // The request handler is shared: destroying it once closes the pool of both clients.
  baseClients[0]?.destroy();
  baseClients.length = 0;
  documentClient = undefined;
  exactClient = undefined;
}

/** One item of a TransactWriteItems, as the document client takes it. */
/**
 * `SET #name = :name` for each field, with its names and values added to the expression's own:
 * the attributes a conditional status change sets beside the status (payments, operations).
 */
export function setFields(fields: Record<string, unknown>, expression: { names: Record<string, string>; values: Record<string, unknown>; sets: string[] }): void {
  for (const [name, value] of Object.entries(fields)) {
    expression.names[`#${name}`] = name;
    expression.values[`:${name}`] = value;
    expression.sets.push(`#${name} = :${name}`);
  }
}

export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** A conditional write: true when it was written, false when its condition did not hold; anything else is thrown. */
export async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Writes an item that must be new (its key not yet taken): true when written, false when the key
 * was already there (a repeated delivery, a replay), and nothing of the stored item changed.
 */
export function putIfAbsent<I extends { pk: string; sk: string }>(item: I): Promise<boolean> {
  return conditionally(dynamo().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' })));
}

/**
 * The per-item cancellation reasons of a cancelled TransactWriteItems, in the order the items were
 * sent ('None', 'ConditionalCheckFailed', 'TransactionConflict', ...); undefined for any other error.
 */
export function cancellationReasons(error: unknown): CancellationReason[] | undefined {
  if (!(error instanceof TransactionCanceledException)) return undefined;
  return error.CancellationReasons as CancellationReason[] | undefined;
}

/**
 * `write` again while `contended` says its failure wrote nothing (another writer held the item), with
 * full-jitter backoff, at most `maxAttempts` times; anything else is thrown at once.
 */
async function whileContended<T>(write: () => Promise<T>, contended: (error: unknown) => boolean, maxAttempts: number): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (!contended(error) || attempt >= maxAttempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1_000, 10 * 2 ** attempt)));
    }
  }
}

/**
 * TransactWriteItems, all or nothing. A cancellation caused only by contention (many writers on one
 * item; real DynamoDB cancels them, DynamoDB Local serializes) is retried with full-jitter backoff;
 * anything else, a failed condition first of all, is thrown for the caller to read.
 */
export async function transactWrite(items: TransactItem[], maxAttempts = 8): Promise<void> {
  await whileContended(() => dynamo().send(new TransactWriteCommand({ TransactItems: items })), isContentionCancellation, maxAttempts);
}

/**
 * One conditional write sent as itself, not as a TransactWriteItems of one item: the same all or
 * nothing on one item, at half the write units (a transaction bills each item twice). True when
 * written, false when its condition did not hold. A write that met a transaction in progress on
 * the item (TransactionConflictException) wrote nothing and is tried again, as transactWrite does.
 */
export async function writeOne(item: TransactItem, maxAttempts = 8): Promise<boolean> {
  const command = item.Update ? new UpdateCommand(item.Update) : item.Put ? new PutCommand(item.Put) : item.Delete ? new DeleteCommand(item.Delete) : undefined;
  if (!command) throw new Error('writeOne takes an Update, a Put or a Delete');
  return whileContended(() => conditionally(dynamo().send(command as UpdateCommand)), (error) => error instanceof TransactionConflictException, maxAttempts);
}

/**
 * Every item a Query matches, page after page (DynamoDB stops a page at 1 MB): for the lists that
 * are bounded per organization and answered whole. `client` is `dynamoExact()` where amounts are read.
 */
export async function queryAll(
  input: Omit<QueryCommandInput, 'ExclusiveStartKey'>,
  client: DynamoDBDocumentClient = dynamo(),
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client.send(new QueryCommand({ ...input, ExclusiveStartKey: startKey }));
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/**
 * "The sort key starts with `prefix`" as a key range, `sk BETWEEN prefix AND <prefix's successor>`
 * (decision 097). DynamoDB answers it exactly as `begins_with`; DynamoDB Local reads the whole
 * partition for `begins_with` (an organization's, which grows with every payment: 4 ms of its CPU a
 * query at 20,000 items, 6.7 ms at 40,000) and only the range for BETWEEN (0.3 ms). BETWEEN is
 * inclusive, so the one key it adds (the successor itself) is dropped by `withPrefix`.
 */
export function sortKeyPrefix(pk: string, prefix: string) {
  const last = prefix.charCodeAt(prefix.length - 1);
  // Every prefix of ours ends in an ASCII delimiter; a surrogate half has no successor to take.
  if (!(last >= 0x20 && last < 0x7f)) throw new Error(`sortKeyPrefix: ${JSON.stringify(prefix)} must end in a printable ASCII character`);
  return {
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :skPrefix AND :skPrefixEnd',
    ExpressionAttributeValues: { ':pk': pk, ':skPrefix': prefix, ':skPrefixEnd': prefix.slice(0, -1) + String.fromCharCode(last + 1) },
    withPrefix: <T extends Record<string, unknown>>(items: T[]): T[] => items.filter((item) => typeof item.sk === 'string' && item.sk.startsWith(prefix)),
  };
}

/** Every item of partition `pk` whose sort key starts with `prefix`, all pages (see sortKeyPrefix). */
export async function queryPrefix(
  pk: string,
  prefix: string,
  input: Omit<QueryCommandInput, 'ExclusiveStartKey' | 'KeyConditionExpression' | 'TableName'> = {},
  client: DynamoDBDocumentClient = dynamo(),
): Promise<Record<string, unknown>[]> {
  const { KeyConditionExpression, ExpressionAttributeValues, withPrefix } = sortKeyPrefix(pk, prefix);
  const items = await queryAll(
    { ...input, TableName: tableName(), KeyConditionExpression, ExpressionAttributeValues: { ...input.ExpressionAttributeValues, ...ExpressionAttributeValues } },
    client,
  );
  return withPrefix(items);
}

/**
 * Every item of `keys` that exists, strongly consistent, 100 keys a call, the calls in parallel;
 * unprocessed keys are asked again (with backoff) until answered, so an absent item is never an
 * unanswered one.
 */
export async function batchGetAll(keys: { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
  const table = tableName();
  const chunks: { pk: string; sk: string }[][] = [];
  for (let start = 0; start < keys.length; start += 100) chunks.push(keys.slice(start, start + 100));
  const pages = await Promise.all(
    chunks.map(async (chunk) => {
      const found: Record<string, unknown>[] = [];
      let pending: Record<string, unknown>[] = chunk;
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 10 * 2 ** attempt)));
        const { Responses, UnprocessedKeys } = await dynamo().send(
          new BatchGetCommand({
            RequestItems: { [table]: { Keys: pending, ConsistentRead: true } },
          }),
        );
        found.push(...(Responses?.[table] ?? []));
        pending = (UnprocessedKeys?.[table]?.Keys as Record<string, unknown>[] | undefined) ?? [];
      }
      return found;
    }),
  );
  return pages.flat();
}

/** Puts of items that are the same whoever writes them: 25 a call, the calls in parallel, unprocessed ones sent again. */
export async function batchPutAll(items: Record<string, unknown>[], parallel = 8): Promise<void> {
  const table = tableName();
  const chunks: Record<string, unknown>[][] = [];
  for (let start = 0; start < items.length; start += 25) chunks.push(items.slice(start, start + 25));
  const putChunk = async (chunk: Record<string, unknown>[]) => {
    let pending = chunk.map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; pending.length > 0; attempt += 1) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 10 * 2 ** attempt)));
      const { UnprocessedItems } = await dynamo().send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      pending = (UnprocessedItems?.[table] as typeof pending | undefined) ?? [];
    }
  };
  await pMap(chunks, putChunk, { concurrency: parallel });
}
