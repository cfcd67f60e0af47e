import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { z } from 'zod/mini';
import { dynamo, putIfAbsent, tableName } from '#store/client.ts';

/**
 * The simulators' books. A simulator keeps its own record in the service's table, as a real
 * provider keeps its own: what it accepted survives a restart of the process (a Lambda's cold
 * start, `npm start` again), and a repeat of a reference answers the first answer. Items carry
 * `SIM…` keys (functions/store/keys.ts) and are never read by the service's own code.
 */
export interface BookKey {
  pk: string;
  sk: string;
}

/** The entry at `key`, read strongly consistent (a repeat must see the first). */
export async function readEntry<S extends z.ZodMiniType>(key: BookKey, schema: S): Promise<z.infer<S> | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  return Item ? schema.parse(Item) : undefined;
}

/**
 * Writes `entry` unless the key holds one already, and answers the entry that stands: this one, or
 * the first (a repeat, or a concurrent first that won). Never a second.
 */
export async function firstEntry<S extends z.ZodMiniType>(key: BookKey, entry: z.infer<S>, schema: S): Promise<z.infer<S>> {
  if (await putIfAbsent({ ...key, ...(entry as object) })) return entry;
  const winner = await readEntry(key, schema);
  if (!winner) throw new Error(`${key.pk} was refused as taken but holds no entry`);
  return winner;
}

/** Counts one more attempt at `key` (a band that is unavailable a few times first); answers the count including it. */
export async function countAttempt(key: BookKey, entity: string, reference: string): Promise<number> {
  const result = await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'ADD #attempts :one SET #entity = :entity, #reference = :reference',
      ExpressionAttributeNames: { '#attempts': 'attempts', '#entity': 'entity', '#reference': 'reference' },
      ExpressionAttributeValues: { ':one': 1, ':entity': entity, ':reference': reference },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.attempts);
}

/**
 * Seconds a simulated step takes, from the environment variable `name` (default 0). Read on every
 * call so a test or the launcher can change it; a bad value is a configuration error, not 0.
 */
export function secondsFrom(name: string): number {
  const text = process.env[name];
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,6}$/.test(text)) throw new Error(`${name} must be a whole number of seconds`);
  return Number(text);
}

/** What every simulator that keeps a book shares: the clock it stamps and reads its entries by (a test passes a fixed one). */
export abstract class Simulator {
  protected readonly now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.now = options.now ?? (() => new Date());
  }
}
