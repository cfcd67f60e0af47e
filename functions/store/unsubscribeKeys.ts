import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newUnsubscribeKey } from '#domain/notifications.ts';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';
import { open, seal, type Sealed } from './secretBox.ts';

/**
 * A member's key for its unsubscribe links (docs/decisions/094, 110), on the member item: sealed by the
 * secret box that seals webhook secrets (a KMS data key in AWS, bound to the organization), never in
 * clear, with a version that every token names. Made at the member's first verification; replaced by
 * a new version when the member's API key rotates, which retires every link signed under an older
 * one; gone with the member item when the member is removed.
 */
export interface UnsubscribeKeyFields {
  notifyKeySealed?: Sealed;
  notifyKeyVersion?: number;
  /** A key from before sealing, in clear: version 1, sealed by `sealClearUnsubscribeKeys`. */
  notifyKey?: string;
}

interface KeyHolder extends UnsubscribeKeyFields {
  organizationId: string;
  id: string;
}

export interface NewUnsubscribeKey {
  sealed: Sealed;
  version: number;
}

/** The member has a key to sign links with (sealed, or one from before sealing). */
export function hasUnsubscribeKey(member: UnsubscribeKeyFields): boolean {
  return member.notifyKeySealed !== undefined || member.notifyKey !== undefined;
}

/** The version a member's links are signed under now; undefined before its first key. */
export function unsubscribeKeyVersion(member: UnsubscribeKeyFields): number | undefined {
  if (member.notifyKeySealed) return member.notifyKeyVersion ?? 1;
  return member.notifyKey === undefined ? undefined : 1;
}

/** The member's current key, opened, with its version. */
export async function openUnsubscribeKey(member: KeyHolder): Promise<{ key: string; version: number } | undefined> {
  if (member.notifyKeySealed) return { key: await open(member.notifyKeySealed, member.organizationId), version: member.notifyKeyVersion ?? 1 };
  return member.notifyKey === undefined ? undefined : { key: member.notifyKey, version: 1 };
}

/** The member's next key, sealed: the first (version 1), or the one after its current (a rotation). */
export async function nextUnsubscribeKey(member: KeyHolder, clearKey = newUnsubscribeKey()): Promise<NewUnsubscribeKey> {
  return { sealed: await seal(clearKey, member.organizationId), version: (unsubscribeKeyVersion(member) ?? 0) + 1 };
}

/**
 * Once, for a table from before sealing: every member's clear key is sealed as version 1 (the links
 * already mailed keep working until a rotation), on the condition that it is still that clear key.
 */
export async function sealClearUnsubscribeKeys(): Promise<{ sealed: number }> {
  let sealed = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new ScanCommand({
      TableName: tableName(),
      FilterExpression: 'entity = :member AND attribute_exists(notifyKey)',
      ExpressionAttributeValues: { ':member': 'member' },
      ProjectionExpression: 'organizationId, id, notifyKey',
      ExclusiveStartKey: startKey,
    }));
    for (const item of (page.Items ?? []) as KeyHolder[]) {
      const { sealed: box } = await nextUnsubscribeKey({ organizationId: item.organizationId, id: item.id }, item.notifyKey);
      try {
        await dynamo().send(new UpdateCommand({
          TableName: tableName(),
          Key: keys.member(item.organizationId, item.id),
          UpdateExpression: 'SET notifyKeySealed = :sealed, notifyKeyVersion = :one REMOVE notifyKey',
          ConditionExpression: 'notifyKey = :clear AND attribute_not_exists(notifyKeySealed)',
          ExpressionAttributeValues: { ':sealed': box, ':one': 1, ':clear': item.notifyKey },
        }));
        sealed += 1;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { sealed };
}
