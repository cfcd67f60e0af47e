/**
 * Write units as AWS bills them, call by call, from the written items before and after the call.
 * DynamoDB Local's ConsumedCapacity leaves out, inside TransactWriteItems, the index writes and the
 * size of updated items; the request alone does not tell an update's size nor its index entries.
 * So while inspecting, every write call is bracketed by strongly consistent GetItems of the items it
 * names (before and after), sent by a client of the bench's own: not counted, and not seen by the
 * service. Only for calls made one at a time in a quiet system (the one-by-one counts): under load
 * the extra reads would change what is measured, and another writer could land between them.
 *
 * The billing model (docs/decisions/138):
 * - an item: 1 unit per started KB of the larger of the item before and after (a delete: before;
 *   a refused write: the item as it stands), at least 1; twice that inside a transaction
 *   (a ConditionCheck too, at the checked item's size);
 * - each global index (table.ts) the item is in before or after: the projected entry (the table's
 *   and the index's keys and the projected attributes present) at 1 unit per started KB; entering:
 *   a put of the new entry; leaving: a delete of the old; a key change: both; same keys: nothing
 *   when no projected attribute changed, else the larger entry. Inside a transaction they are
 *   doubled like the item: AWS writes index entries after the item, and its documentation does not
 *   say whether a transaction's are billed twice, so the count takes the larger reading.
 */
import { DynamoDBClient, GetItemCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { config } from '#platform/config.ts';
import { table } from '#contract/table.ts';
import { dynamoEndpointSettings } from '#store/client.ts';

type StoredItem = Record<string, AttributeValue>;

/** DynamoDB's size of an attribute value (developer guide, "Item sizes and formats"). */
function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((sum, member) => sum + Buffer.byteLength(member), 0);
  if (value.NS) return value.NS.reduce((sum, member) => sum + numberBytes(member), 0);
  if (value.BS) return value.BS.reduce((sum, member) => sum + member.byteLength, 0);
  if (value.L) return 3 + value.L.reduce((sum, member) => sum + 1 + valueBytes(member), 0);
  if (value.M) return 3 + Object.entries(value.M).reduce((sum, [name, member]) => sum + 1 + Buffer.byteLength(name) + valueBytes(member), 0);
  return 1;
}

/** About one byte per two significant digits, plus one (rounded up: never under). */
function numberBytes(number: string): number {
  const digits = number.replace(/^-/, '').replace(/[.]/g, '').replace(/e.*$/i, '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(1, digits.length) / 2) + 1;
}

export function storedItemBytes(item: StoredItem): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

/** The same for an item as the document client holds it (plain values, NumberValue, Set, bytes). */
export function documentItemBytes(item: Record<string, unknown> | undefined): number {
  return item ? storedItemBytes(marshall(item, { removeUndefinedValues: true })) : 0;
}

/** Write units of an item of that many bytes: 1 per started KB, at least 1. */
export const kbUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** The entry an index holds for the item, or undefined when the item is not in it. */
function indexEntry(index: (typeof table.globalIndexes)[number], item: StoredItem | undefined): StoredItem | undefined {
  if (!item || item[index.partitionKey]?.S === undefined || item[index.sortKey]?.S === undefined) return undefined;
  const names = [table.partitionKey, table.sortKey, index.partitionKey, index.sortKey, ...index.projects];
  return Object.fromEntries(names.filter((name) => item[name] !== undefined).map((name) => [name, item[name]!]));
}

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a, canonical) === JSON.stringify(b, canonical);
function canonical(_key: string, value: unknown) {
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value && typeof value === 'object' && !Array.isArray(value)) return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)));
  return value;
}

/** The units AWS bills on the indexes for an item going from `before` to `after`. */
export function indexWriteUnits(before: StoredItem | undefined, after: StoredItem | undefined): number {
  let units = 0;
  for (const index of table.globalIndexes) {
    const old = indexEntry(index, before);
    const now = indexEntry(index, after);
    if (!old && !now) continue;
    if (!old || !now) {
      units += kbUnits(storedItemBytes((old ?? now)!));
      continue;
    }
    const sameKeys = sameValue(old[index.partitionKey], now[index.partitionKey]) && sameValue(old[index.sortKey], now[index.sortKey]);
    if (!sameKeys) units += kbUnits(storedItemBytes(old)) + kbUnits(storedItemBytes(now));
    else if (!sameValue(old, now)) units += kbUnits(Math.max(storedItemBytes(old), storedItemBytes(now)));
  }
  return units;
}

/** One item a write call names, and how it is written. */
interface WrittenItem {
  key: { pk: string; sk: string };
  tableName: string;
  inTransaction: boolean;
  conditionCheckOnly: boolean;
  before?: StoredItem;
  after?: StoredItem;
}

export interface ItemUnits {
  /** The item's own write (doubled in a transaction). */
  item: number;
  /** Its index entries (doubled in a transaction too: the larger reading). */
  indexes: number;
}

const text = (value: unknown) => (typeof value === 'string' ? value : (value as { S?: string } | undefined)?.S);
function keyOf(source: unknown): { pk: string; sk: string } | undefined {
  const pk = text((source as Record<string, unknown> | undefined)?.[table.partitionKey]);
  const sk = text((source as Record<string, unknown> | undefined)?.[table.sortKey]);
  return pk !== undefined && sk !== undefined ? { pk, sk } : undefined;
}

/** The items a write call names; undefined for calls that write nothing. */
function writtenItems(command: string, input: Record<string, any>): WrittenItem[] | undefined {
  const item = (source: unknown, tableName: string, inTransaction = false, conditionCheckOnly = false): WrittenItem[] => {
    const key = keyOf(source);
    return key ? [{ key, tableName, inTransaction, conditionCheckOnly }] : [];
  };
  switch (command) {
    case 'PutItem':
      return item(input.Item, input.TableName);
    case 'UpdateItem':
    case 'DeleteItem':
      return item(input.Key, input.TableName);
    case 'TransactWriteItems':
      return ((input.TransactItems ?? []) as Record<string, any>[]).flatMap((entry) => {
        if (entry.Put) return item(entry.Put.Item, entry.Put.TableName, true);
        if (entry.Update) return item(entry.Update.Key, entry.Update.TableName, true);
        if (entry.Delete) return item(entry.Delete.Key, entry.Delete.TableName, true);
        if (entry.ConditionCheck) return item(entry.ConditionCheck.Key, entry.ConditionCheck.TableName, true, true);
        return [];
      });
    case 'BatchWriteItem':
      return Object.entries((input.RequestItems ?? {}) as Record<string, Record<string, any>[]>).flatMap(([tableName, requests]) =>
        requests.flatMap((request) => item(request.PutRequest?.Item ?? request.DeleteRequest?.Key, tableName)),
      );
    default:
      return undefined;
  }
}

/**
 * Brackets write calls with reads of their items while `active()` says so; `unitsOf(input)` then
 * answers the call's units per item (after the call). For client.ts `inspectCalls`. A refused put is
 * not sized here by what it would have written: the bench's floor (payments.ts) sizes it from the request.
 */
export function writeInspector(active: () => boolean) {
  let client: DynamoDBClient | undefined;
  const reader = () => {
    if (client) return client;
    const { DYNAMODB_ENDPOINT, AWS_REGION } = config();
    client = new DynamoDBClient({
      region: AWS_REGION,
      ...dynamoEndpointSettings(DYNAMODB_ENDPOINT),
    });
    return client;
  };
  const read = async (written: WrittenItem) =>
    (await reader().send(new GetItemCommand({ TableName: written.tableName, Key: { pk: { S: written.key.pk }, sk: { S: written.key.sk } }, ConsistentRead: true }))).Item;
  const inspected = new WeakMap<object, WrittenItem[]>();

  const inspect = async (command: string, input: Record<string, unknown>) => {
    if (!active()) return undefined;
    const items = writtenItems(command, input);
    if (!items?.length) return undefined;
    await Promise.all(items.map(async (written) => void (written.before = await read(written))));
    return async () => {
      await Promise.all(items.map(async (written) => void (written.after = await read(written))));
      inspected.set(input, items);
    };
  };

  /** The units of an inspected call, item by item (undefined when it was not inspected). */
  const unitsOf = (input: Record<string, unknown>): ItemUnits[] | undefined =>
    inspected.get(input)?.map((written) => {
      const sizes = [written.before, written.after].filter((item): item is StoredItem => item !== undefined).map(storedItemBytes);
      const size = Math.max(0, ...sizes);
      return {
        item: (written.inTransaction ? 2 : 1) * kbUnits(size),
        indexes: written.conditionCheckOnly ? 0 : (written.inTransaction ? 2 : 1) * indexWriteUnits(written.before, written.after),
      };
    });

  return { inspect, unitsOf, close: () => client?.destroy() };
}
