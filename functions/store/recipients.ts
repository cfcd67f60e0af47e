import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { monotonicFactory } from 'ulid';
import { dynamo, queryPrefix, tableName } from './client.ts';
import { keys } from './keys.ts';
import { listFull, writeCounted } from './listCounts.ts';
import { ApiError } from '#platform/errors.ts';
import {
  recipientFieldNames, type CreateRecipientBody, type Recipient, type RecipientField, type UpdateRecipientBody,
} from '#schemas/recipients.ts';

/**
 * Saved recipients: `ORG#<org> / RECIPIENT#<recipientId>` (docs/decisions/050-recipients.md).
 * The item holds every field of the contract's saved recipient, `null` where unset, so the view
 * is the item without its keys. Every change is conditional on the item existing: a PATCH or a
 * DELETE that loses a race with a DELETE answers 404 and never writes the recipient back.
 */
export const recipientEntity = 'recipient';

export type RecipientRecord = Recipient & { organizationId: string };

/** A field a recipient of the type cannot be without (the contract: bank → account, wallet → address). */
const requiredField = { bank: 'account', wallet: 'address' } as const satisfies Record<Recipient['type'], RecipientField>;

const nextUlid = monotonicFactory();

/** `rcp_<ulid>`: sorts by creation, so the list reads newest first straight from the key. */
export function newRecipientId(now = new Date()): string {
  return `rcp_${nextUlid(now.getTime())}`;
}

export function recipientView(item: { [attribute: string]: unknown }): Recipient {
  const field = (name: string) => (item[name] ?? null) as string | null;
  return {
    id: item.id as string,
    name: item.name as string,
    type: item.type as Recipient['type'],
    ...(Object.fromEntries(recipientFieldNames.map((name) => [name, field(name)])) as Record<RecipientField, string | null>),
    lastUsedAt: field('lastUsedAt'),
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
  };
}

export async function createRecipient(organizationId: string, body: CreateRecipientBody, now = new Date()): Promise<Recipient> {
  const at = now.toISOString();
  const record: RecipientRecord = {
    organizationId,
    id: newRecipientId(now),
    name: body.name,
    type: body.type,
    ...(Object.fromEntries(recipientFieldNames.map((name) => [name, body[name] ?? null])) as Record<RecipientField, string | null>),
    lastUsedAt: null,
    createdAt: at,
    updatedAt: at,
  };
  const written = await writeCounted(organizationId, 'recipients', [
    { Put: { TableName: tableName(), Item: { ...keys.recipient(organizationId, record.id), entity: recipientEntity, ...record }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ], 1);
  if (written.outcome === 'full') throw listFull('recipients', written.cap);
  if (written.outcome === 'refused') throw new Error(`recipient id ${record.id} was taken`);
  return recipientView(record);
}

/** Another organization's recipient is simply absent: the key is scoped by the caller's organization. */
export async function getRecipient(organizationId: string, recipientId: string): Promise<Recipient | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.recipient(organizationId, recipientId), ConsistentRead: true }),
  );
  return Item ? recipientView(Item) : undefined;
}

/**
 * Every recipient of the organization, newest first. No cursor: the contract returns the full set
 * with `count` for lists bounded per organization (Conventions, point 12), so this reads every
 * page of the Query (DynamoDB stops a page at 1 MB) rather than handing a cursor to the caller.
 */
export async function listRecipients(organizationId: string): Promise<Recipient[]> {
  const { pk, sk: prefix } = keys.recipient(organizationId, '');
  const items = await queryPrefix(pk, prefix, { ScanIndexForward: false, ConsistentRead: true });
  return items.map(recipientView);
}

export type RecipientUpdate =
  | { outcome: 'updated'; recipient: Recipient }
  | { outcome: 'not_found' }
  /** The change would leave a bank recipient without an account or a wallet recipient without an address. */
  | { outcome: 'incomplete'; field: RecipientField; type: Recipient['type'] };

/**
 * PATCH semantics in one conditional UpdateItem: only the given fields are set, `null` clears one,
 * `type` never changes (the body cannot carry it). The type's required field may not be cleared:
 * clearing `account` is conditional on the recipient not being a bank one, clearing `address` on
 * it not being a wallet one, so the rule holds against the item as stored, not as read earlier.
 */
export async function updateRecipient(
  organizationId: string,
  recipientId: string,
  changes: UpdateRecipientBody,
  now = new Date(),
): Promise<RecipientUpdate> {
  const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
  const values: Record<string, unknown> = { ':updatedAt': now.toISOString() };
  const sets = ['#updatedAt = :updatedAt'];
  const conditions = ['attribute_exists(pk)'];
  for (const [name, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    names[`#${name}`] = name;
    values[`:${name}`] = value;
    sets.push(`#${name} = :${name}`);
  }
  for (const [type, field] of Object.entries(requiredField)) {
    if (changes[field] !== null) continue;
    names['#type'] = 'type';
    values[`:not_${type}`] = type;
    conditions.push(`#type <> :not_${type}`);
  }
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.recipient(organizationId, recipientId),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return { outcome: 'updated', recipient: recipientView(Attributes!) };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // The item as it stood when the condition failed: absent means 404, present means the type rule.
    if (!error.Item) return { outcome: 'not_found' };
    const { type } = recipientView(unmarshall(error.Item));
    return { outcome: 'incomplete', field: requiredField[type], type };
  }
}

/**
 * Deletes and answers the recipient as it was; undefined when there was none (or another
 * organization's). Read first, then deleted on the condition that it is still as read (with the
 * list's count, decision 108), so the answer is what was deleted.
 */
export async function deleteRecipient(organizationId: string, recipientId: string): Promise<Recipient | undefined> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const recipient = await getRecipient(organizationId, recipientId);
    if (!recipient) return undefined;
    const written = await writeCounted(organizationId, 'recipients', [
      {
        Delete: {
          TableName: tableName(),
          Key: keys.recipient(organizationId, recipientId),
          ConditionExpression: recipient.lastUsedAt === null
            ? 'updatedAt = :updatedAt AND (attribute_not_exists(lastUsedAt) OR attribute_type(lastUsedAt, :unset))'
            : 'updatedAt = :updatedAt AND lastUsedAt = :lastUsedAt',
          ExpressionAttributeValues: {
            ':updatedAt': recipient.updatedAt,
            ...(recipient.lastUsedAt === null ? { ':unset': 'NULL' } : { ':lastUsedAt': recipient.lastUsedAt }),
          },
        },
      },
    ], -1);
    if (written.outcome === 'written') return recipient;
    // Changed or deleted since it was read: read it again.
  }
  throw new ApiError('unavailable', 'The recipient changed while this request was deleting it; retry.');
}

/**
 * Records that a payment went to the recipient (batches name recipients by id). `lastUsedAt` only
 * moves forward, so items of one batch finishing out of order leave the latest time; `updatedAt`
 * is left alone: it tells when the recipient's details last changed. Undefined when the recipient
 * no longer exists (the payment itself is unaffected; nothing is written back).
 */
export async function markRecipientUsed(organizationId: string, recipientId: string, at: Date): Promise<Recipient | undefined> {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.recipient(organizationId, recipientId),
        UpdateExpression: 'SET lastUsedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_type(lastUsedAt, :unset) OR lastUsedAt < :at)',
        ExpressionAttributeValues: { ':at': at.toISOString(), ':unset': 'NULL' },
        ReturnValues: 'ALL_NEW',
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      }),
    );
    return recipientView(Attributes!);
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // Present but already used at a later time: nothing to change.
    return error.Item ? recipientView(unmarshall(error.Item)) : undefined;
  }
}
