import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { CancellationReason } from '@aws-sdk/client-dynamodb';
import { cancellationReasons, conditionally, dynamo, sortKeyPrefix, tableName, transactWrite, type TransactItem } from './client.ts';
import { keys } from './keys.ts';
import { ApiError } from '#platform/errors.ts';

/**
 * The lists the contract answers whole, with `count` and no cursor (Conventions, point 12), are
 * capped per organization (docs/decisions/108-list-caps.md): saved recipients, off-ramp
 * beneficiaries and members. Each list has a counter item, `ORG#<org> / LISTCOUNT#<list>`, moved in
 * the same transaction as the item it counts: one more (while below the cap) beside a create, one
 * less beside a delete. A list without its counter yet (an organization from before the caps) is
 * counted once, by a Query, when a write first needs it; until then no write of it commits, so the
 * count is exact.
 */
export const cappedLists = ['recipients', 'beneficiaries', 'members'] as const;
export type CappedList = (typeof cappedLists)[number];

export const listCaps: Record<CappedList, number> = { recipients: 500, beneficiaries: 500, members: 2_000 };

/** The sort key prefix of the items each list counts (functions/store/keys.ts). */
const itemPrefix: Record<CappedList, string> = { recipients: 'RECIPIENT#', beneficiaries: 'OFFRAMP_BENEFICIARY#', members: 'MEMBER#' };

const entity = 'listCount';

export type CountedWrite =
  | { outcome: 'written' }
  /** The list holds its cap already: nothing was written. */
  | { outcome: 'full'; cap: number }
  /** A condition of the caller's own items failed (in the order given): nothing was written. */
  | { outcome: 'refused'; reasons: CancellationReason[] };

function counterItem(organizationId: string, list: CappedList, change: 1 | -1): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.listCount(organizationId, list),
      UpdateExpression: 'SET entity = :entity ADD #count :change',
      // An absent counter fails both: the list is counted first.
      ConditionExpression: change > 0 ? '#count < :cap' : 'attribute_exists(#count)',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':entity': entity, ':change': change, ...(change > 0 ? { ':cap': listCaps[list] } : {}) },
    },
  };
}

/**
 * `items` (a create when `change` is 1, a delete when -1) with the list's counter, in one
 * transaction. A list at its cap refuses a create; a counter not there yet is made, then the write
 * is tried again.
 */
export async function writeCounted(organizationId: string, list: CappedList, items: TransactItem[], change: 1 | -1): Promise<CountedWrite> {
  for (let attempt = 0; attempt < 4; attempt += 1) {
    try {
      await transactWrite([...items, counterItem(organizationId, list, change)]);
      return { outcome: 'written' };
    } catch (error) {
      const reasons = cancellationReasons(error);
      if (!reasons) throw error;
      const own = reasons.slice(0, items.length);
      if (own.some((reason) => reason.Code === 'ConditionalCheckFailed')) return { outcome: 'refused', reasons: own };
      if (reasons[items.length]?.Code !== 'ConditionalCheckFailed') throw error;
      const count = await readCount(organizationId, list);
      if (count === undefined) await countList(organizationId, list);
      else if (change > 0 && count >= listCaps[list]) return { outcome: 'full', cap: listCaps[list] };
      // Otherwise the count moved between the write and the read: try again.
    }
  }
  throw new Error(`the ${list} count of ${organizationId} kept moving`);
}

async function readCount(organizationId: string, list: CappedList): Promise<number | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.listCount(organizationId, list), ConsistentRead: true }));
  return typeof Item?.count === 'number' ? Item.count : undefined;
}

/**
 * Makes the counter of a list written before the caps: its items, counted by a Query of their key
 * range. No write of the list commits without the counter, so none can slip between the Query and
 * the Put; of two processes counting at once, the first Put stands and the other counted the same.
 */
async function countList(organizationId: string, list: CappedList): Promise<void> {
  const { pk } = keys.organization(organizationId);
  const { KeyConditionExpression, ExpressionAttributeValues } = sortKeyPrefix(pk, itemPrefix[list]);
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    // The range's upper end is the prefix's successor, which is no item's key: the count is the list's.
    const page = await dynamo().send(
      new QueryCommand({ TableName: tableName(), KeyConditionExpression, ExpressionAttributeValues, Select: 'COUNT', ConsistentRead: true, ExclusiveStartKey: startKey }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  await conditionally(
    dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: { ...keys.listCount(organizationId, list), entity, list, count },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

const fullMessages: Record<CappedList, (cap: number) => string> = {
  recipients: (cap) => `This organization keeps ${cap} saved recipients, the most it may: delete one it no longer pays before saving another.`,
  beneficiaries: (cap) => `This organization has registered ${cap} off-ramp beneficiaries, the most it may; beneficiaries cannot be deleted, so off-ramp to one already registered.`,
  members: (cap) => `The team has ${cap} members and pending invitations, the most it may: remove a member or rescind an invitation before inviting another.`,
};

/** The answer to a create refused because its list is full: 409 `conflict`, with the cap as `limit` (decision 108). */
export function listFull(list: CappedList, cap: number): ApiError {
  return new ApiError('conflict', fullMessages[list](cap), { limit: cap });
}
