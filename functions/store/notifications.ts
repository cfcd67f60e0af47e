import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashInvitationToken as hashLinkToken, newInvitationToken as newLinkToken } from '#domain/team.ts';
import { isUnsubscribeTokenValid, notificationEventTypes, readUnsubscribeToken, type UnsubscribeClaims } from '#domain/notifications.ts';
import type { EventType } from '#schemas/webhooks.ts';
import type { NotificationPreferences } from '#schemas/notifications.ts';
import { batchGetAll, dynamo, queryPrefix, tableName, type TransactItem } from './client.ts';
import { keys } from './keys.ts';
import { clearedAddress, getSuppression, standingSuppression, type MailableAddress, type MailSuppression } from './mailSuppressions.ts';
import { getMember, transact, type MemberItem, type Stale } from './members.ts';
import { hasUnsubscribeKey, nextUnsubscribeKey, openUnsubscribeKey, unsubscribeKeyVersion } from './unsubscribeKeys.ts';

/**
 * E-mail notifications of a member (docs/decisions/094). What the member chose, whether its address
 * is verified, and its unsubscribe key (sealed and versioned: store/unsubscribeKeys.ts, decision 110)
 * live on the member item (so a removed member, whose item is deleted, has none of it). Beside it:
 * - one subscription item per chosen event type (`ORG#<org> / NOTIFY#<type>#<memberId>`), written in
 *   the same transaction as the choice: the mailer queries the members who chose an event instead of
 *   reading the whole team;
 * - the pending verification link's token item (`EMAILVERIFY#<sha256> / EMAILVERIFY`), single use,
 *   expiring, replaced by a re-send in one transaction;
 * - the once-per-member-and-event marker of each notification e-mail (`NOTIFYMAIL#<eventId> /
 *   MEMBER#<memberId>`), `sending` then `sent`.
 */
export const notificationSubscriptionEntity = 'notificationSubscription';
export const emailVerificationEntity = 'emailVerification';
export const notificationMailEntity = 'notificationMail';

/** A used verification token is kept this long after its expiry, so a second click says "already verified". */
const usedTokenRetentionSeconds = 7 * 24 * 3600;
/** Markers outlive any redelivery of their event (queues keep a message 14 days; the outbox, a week). */
const markerRetentionSeconds = 15 * 24 * 3600;

export interface EmailVerificationItem {
  pk: string;
  sk: string;
  entity: typeof emailVerificationEntity;
  organizationId: string;
  memberId: string;
  email: string;
  expiresAt: string;
  usedAt?: string;
  ttl: number;
  createdAt: string;
}

// ---- Preferences -------------------------------------------------------------------------

/** A suppression stops mail to the member until the member verifies the address after it (or an operator lifts it). */
export function activeSuppression(member: MemberItem, suppression: MailSuppression | undefined): MailSuppression | undefined {
  return standingSuppression(suppression, member.emailVerifiedAt);
}

export function memberSuppression(member: MemberItem): Promise<MailSuppression | undefined> {
  return member.email ? getSuppression(member.email) : Promise.resolve(undefined);
}

/** The member's address, when it may be e-mailed notifications: active, verified, and not suppressed since. */
export function notifiableAddress(member: MemberItem, suppression: MailSuppression | undefined): MailableAddress | undefined {
  if (member.status !== 'active' || member.emailVerifiedAt === undefined) return undefined;
  return clearedAddress(member.email, suppression, member.emailVerifiedAt);
}

function inContractOrder(events: readonly string[]): EventType[] {
  return notificationEventTypes.filter((type) => events.includes(type));
}

export function preferencesView(member: MemberItem, suppression: MailSuppression | undefined, verificationAvailable: boolean): NotificationPreferences {
  const suppressed = activeSuppression(member, suppression);
  return {
    events: inContractOrder(member.notifyEvents ?? []),
    availableEvents: [...notificationEventTypes],
    emailVerified: member.emailVerifiedAt !== undefined && !suppressed,
    verificationAvailable,
    updatedAt: member.notificationsUpdatedAt ?? member.createdAt,
    ...(member.email ? { email: member.email } : {}),
    ...(suppressed ? { suppressionReason: suppressed.reason, suppressedAt: suppressed.suppressedAt } : {}),
  };
}

/**
 * The member's full wanted set, decided on `member` as read: the member item and the subscription
 * items that change, in one transaction conditioned on the member's version of its choices.
 */
export async function setNotificationEvents(member: MemberItem, events: readonly EventType[], now = new Date()): Promise<MemberItem | Stale> {
  const wanted = inContractOrder(events);
  const current = inContractOrder(member.notifyEvents ?? []);
  const at = now.toISOString();
  const version = (member.notifyVersion ?? 0) + 1;
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.member(member.organizationId, member.id),
        UpdateExpression: 'SET notifyEvents = :events, notifyVersion = :next, notificationsUpdatedAt = :now',
        ConditionExpression: member.notifyVersion === undefined
          ? '#status = :active AND attribute_not_exists(notifyVersion)'
          : '#status = :active AND notifyVersion = :version',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':events': wanted, ':next': version, ':now': at, ':active': 'active',
          ...(member.notifyVersion === undefined ? {} : { ':version': member.notifyVersion }),
        },
      },
    },
    ...wanted.filter((type) => !current.includes(type)).map((eventType): TransactItem => ({
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.notificationSubscription(member.organizationId, eventType, member.id),
          entity: notificationSubscriptionEntity,
          organizationId: member.organizationId,
          memberId: member.id,
          eventType,
          createdAt: at,
        },
      },
    })),
    ...current.filter((type) => !wanted.includes(type)).map((eventType): TransactItem => ({
      Delete: { TableName: tableName(), Key: keys.notificationSubscription(member.organizationId, eventType, member.id) },
    })),
  ];
  if ((await transact(items)) === 'stale') return 'stale';
  return { ...member, notifyEvents: wanted, notifyVersion: version, notificationsUpdatedAt: at };
}

// ---- Verification ------------------------------------------------------------------------

export interface IssuedVerification {
  /** The credential, for the e-mail only: never stored, never logged. */
  token: string;
  expiresAt: Date;
}

/**
 * A fresh single-use link for the member's address. The previous pending link's token item is
 * deleted in the same transaction, so a re-send makes the old link stop working at once.
 */
export async function issueVerification(member: MemberItem, ttlSeconds: number, now = new Date()): Promise<IssuedVerification | Stale> {
  const { token, hash } = newLinkToken();
  const expiresAt = new Date(now.getTime() + ttlSeconds * 1000);
  const at = now.toISOString();
  const items: TransactItem[] = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.member(member.organizationId, member.id),
        UpdateExpression: 'SET verifyTokenHash = :new',
        ConditionExpression: member.verifyTokenHash
          ? '#status = :active AND email = :email AND verifyTokenHash = :old'
          : '#status = :active AND email = :email AND attribute_not_exists(verifyTokenHash)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':new': hash, ':active': 'active', ':email': member.email,
          ...(member.verifyTokenHash ? { ':old': member.verifyTokenHash } : {}),
        },
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...keys.emailVerification(hash),
          entity: emailVerificationEntity,
          organizationId: member.organizationId,
          memberId: member.id,
          email: member.email,
          expiresAt: expiresAt.toISOString(),
          ttl: Math.ceil(expiresAt.getTime() / 1000) + usedTokenRetentionSeconds,
          createdAt: at,
        } satisfies EmailVerificationItem,
      },
    },
  ];
  // No condition: an expired token may already be gone (TTL), and it must be gone either way.
  if (member.verifyTokenHash) items.push({ Delete: { TableName: tableName(), Key: keys.emailVerification(member.verifyTokenHash) } });
  if ((await transact(items)) === 'stale') return 'stale';
  return { token, expiresAt };
}

export type VerificationOutcome =
  | { outcome: 'verified'; email: string }
  /** The link was used already and that verification still stands (a second click, or a scanner's first). */
  | { outcome: 'already_verified'; email: string }
  | { outcome: 'expired' }
  /** Unknown, replaced by a newer link, used by a verification that no longer stands, or its member is gone. */
  | { outcome: 'invalid' };

/**
 * Single use under any concurrency: marking the token used (on the condition that it is unused and
 * unexpired) and verifying the member (on the condition that this is still its pending link for this
 * address) are one transaction. Verifying records when, which lifts an earlier suppression for this
 * member (activeSuppression), and gives the member its first unsubscribe key (sealed, version 1) if it
 * has none.
 */
export async function confirmVerification(token: string, now = new Date()): Promise<VerificationOutcome> {
  const hash = hashLinkToken(token);
  const at = now.toISOString();
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.emailVerification(hash), ConsistentRead: true }));
    const link = Item as EmailVerificationItem | undefined;
    if (!link) return { outcome: 'invalid' };
    const member = await getMember(link.organizationId, link.memberId);
    if (!member || member.status !== 'active' || member.email !== link.email) return { outcome: 'invalid' };
    if (link.usedAt) {
      const stands = member.verifiedTokenHash === hash && !activeSuppression(member, await memberSuppression(member));
      return stands ? { outcome: 'already_verified', email: member.email } : { outcome: 'invalid' };
    }
    if (Date.parse(link.expiresAt) <= now.getTime()) return { outcome: 'expired' };
    if (member.verifyTokenHash !== hash) return { outcome: 'invalid' };
    const firstKey = hasUnsubscribeKey(member) ? undefined : await nextUnsubscribeKey(member);
    const written = await transact([
      {
        Update: {
          TableName: tableName(),
          Key: keys.emailVerification(hash),
          UpdateExpression: 'SET usedAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(usedAt) AND expiresAt > :now',
          ExpressionAttributeValues: { ':now': at },
        },
      },
      {
        Update: {
          TableName: tableName(),
          Key: keys.member(member.organizationId, member.id),
          UpdateExpression: `SET emailVerifiedAt = :now, verifiedTokenHash = :hash, notificationsUpdatedAt = :now${
            firstKey ? ', notifyKeySealed = :sealed, notifyKeyVersion = :version' : ''
          } REMOVE verifyTokenHash`,
          ConditionExpression: `#status = :active AND verifyTokenHash = :hash AND email = :email${
            firstKey ? ' AND attribute_not_exists(notifyKeySealed) AND attribute_not_exists(notifyKey)' : ''
          }`,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: {
            ':now': at, ':hash': hash, ':active': 'active', ':email': link.email,
            ...(firstKey ? { ':sealed': firstKey.sealed, ':version': firstKey.version } : {}),
          },
        },
      },
    ]);
    if (written === true) return { outcome: 'verified', email: link.email };
  }
  return { outcome: 'invalid' };
}

// ---- Unsubscribe -------------------------------------------------------------------------

export type UnsubscribeOutcome = { outcome: 'unsubscribed'; claims: UnsubscribeClaims; email: string } | { outcome: 'invalid' };

/**
 * The member and event type a genuine unsubscribe token names: undefined for a forged one, one signed
 * under a key version the member's key rotation retired, or one whose member is gone (decision 110).
 */
export async function unsubscribeTarget(token: string): Promise<{ member: MemberItem; claims: UnsubscribeClaims } | undefined> {
  const claims = readUnsubscribeToken(token);
  if (!claims) return undefined;
  const member = await getMember(claims.organizationId, claims.memberId);
  if (!member || unsubscribeKeyVersion(member) !== claims.keyVersion) return undefined;
  const current = await openUnsubscribeKey(member);
  if (!current || !isUnsubscribeTokenValid(current.key, token)) return undefined;
  return { member, claims };
}

/** Removes the token's event type from the member's choices; doing it twice is harmless. */
export async function unsubscribe(token: string, now = new Date()): Promise<UnsubscribeOutcome> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const target = await unsubscribeTarget(token);
    if (!target) return { outcome: 'invalid' };
    const { member, claims } = target;
    const events = member.notifyEvents ?? [];
    if (!events.includes(claims.eventType)) return { outcome: 'unsubscribed', claims, email: member.email };
    const written = await setNotificationEvents(member, inContractOrder(events.filter((type) => type !== claims.eventType)), now);
    if (written !== 'stale') return { outcome: 'unsubscribed', claims, email: member.email };
  }
  return { outcome: 'invalid' };
}

// ---- Sending -----------------------------------------------------------------------------

export interface NotificationRecipient {
  member: MemberItem;
  suppression?: MailSuppression;
  /** The event types the member has a subscription item of. */
  eventTypes: EventType[];
}

/**
 * The members of the organization who chose any event type, each with the types it chose and its
 * address's suppression: one Query of the subscription items (`NOTIFY#`, every type: the events of a
 * queue batch are of several types, and one read answers them all), then the members and
 * suppressions by key (100 a call). What is read grows with the members who chose events, not with
 * the team.
 */
export async function subscribersOf(organizationId: string): Promise<NotificationRecipient[]> {
  const subscriptions = await queryPrefix(keys.organization(organizationId).pk, 'NOTIFY#', { ConsistentRead: true });
  const chosen = new Map<string, EventType[]>();
  for (const item of subscriptions) {
    const memberId = item.memberId as string;
    chosen.set(memberId, [...(chosen.get(memberId) ?? []), item.eventType as EventType]);
  }
  if (chosen.size === 0) return [];
  const members = (await batchGetAll([...chosen.keys()].map((id) => keys.member(organizationId, id)))) as unknown as MemberItem[];
  const emails = [...new Set(members.filter((member) => member.email).map((member) => member.email.toLowerCase()))];
  const suppressions = (await batchGetAll(emails.map((email) => keys.mailSuppression(email)))) as unknown as MailSuppression[];
  const byEmail = new Map(suppressions.map((suppression) => [suppression.email, suppression]));
  return members
    .sort((a, b) => a.id.localeCompare(b.id))
    .map((member) => ({ member, suppression: member.email ? byEmail.get(member.email.toLowerCase()) : undefined, eventTypes: chosen.get(member.id) ?? [] }));
}

export type MailClaim = { outcome: 'claimed'; claimedAt: string } | { outcome: 'sent' } | { outcome: 'busy' };

/**
 * The once-per-member-and-event marker, claimed before the send: absent, or `sending` for longer than
 * `leaseMs` (an attempt that died between claim and send, or between send and `sent`), is taken;
 * `sent` means done; a fresh `sending` is another delivery at work, so this one waits for a retry.
 */
export async function claimNotificationMail(eventId: string, memberId: string, leaseMs: number, now = new Date()): Promise<MailClaim> {
  const claimedAt = now.toISOString();
  try {
    await dynamo().send(new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.notificationMail(eventId, memberId),
        entity: notificationMailEntity,
        eventId,
        memberId,
        status: 'sending',
        claimedAt,
        ttl: Math.floor(now.getTime() / 1000) + markerRetentionSeconds,
      },
      ConditionExpression: 'attribute_not_exists(pk) OR (#status = :sending AND claimedAt < :staleBefore)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':sending': 'sending', ':staleBefore': new Date(now.getTime() - leaseMs).toISOString() },
    }));
    return { outcome: 'claimed', claimedAt };
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.notificationMail(eventId, memberId), ConsistentRead: true }));
    return Item?.status === 'sent' ? { outcome: 'sent' } : { outcome: 'busy' };
  }
}

export async function markNotificationMailSent(eventId: string, memberId: string, messageId: string, now = new Date()): Promise<void> {
  await dynamo().send(new UpdateCommand({
    TableName: tableName(),
    Key: keys.notificationMail(eventId, memberId),
    UpdateExpression: 'SET #status = :sent, sentAt = :now, messageId = :messageId',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':sent': 'sent', ':now': now.toISOString(), ':messageId': messageId },
  }));
}

/** A send the transport refused: the claim is given back so the retry sends. */
export async function releaseNotificationMail(eventId: string, memberId: string, claimedAt: string): Promise<void> {
  try {
    await dynamo().send(new DeleteCommand({
      TableName: tableName(),
      Key: keys.notificationMail(eventId, memberId),
      ConditionExpression: '#status = :sending AND claimedAt = :claimedAt',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':sending': 'sending', ':claimedAt': claimedAt },
    }));
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
