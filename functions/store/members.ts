import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { issueApiKey, type KeyEnvironment } from '#domain/apiKeys.ts';
import {
  emailKey, hashInvitationToken, invitationExpiry, invitationMailMemorySeconds, invitationMailWait, newInvitationToken, withInvitationMail,
  type MemberRole, type MemberStatus,
} from '#domain/team.ts';
import { notificationEventTypes } from '#domain/notifications.ts';
import type { Member } from '#schemas/team.ts';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { cancellationReasons, dynamo, queryPrefix, tableName, transactWrite, type TransactItem } from './client.ts';
import { ApiError, notFound } from '#platform/errors.ts';
import { keys } from './keys.ts';
import { apiKeyItem, putApiKey } from './organizations.ts';
import { listFull, writeCounted } from './listCounts.ts';
import { hasUnsubscribeKey, nextUnsubscribeKey, type UnsubscribeKeyFields } from './unsubscribeKeys.ts';

/**
 * Team members, their invitations and their keys (docs/decisions/051-team-and-keys.md).
 *
 * Items: the member (`ORG#<org> / MEMBER#<memberId>`), the address's uniqueness item
 * (`ORG#<org> / MEMBER_EMAIL#<lowercased email>`), the invitation's token item
 * (`INVITE#<sha256 of the token> / INVITE`, with `expiresAt` and `ttl`), and the member's key item
 * (`ORG#<org> / APIKEY#<keyId>`, decision 077; store/access.ts authenticates from it). A token item is
 * never deleted by a write: accepting, rescinding or replacing it marks it (`endedAs`), and the mark is
 * kept until DynamoDB's TTL removes it 30 days after the expiry, so the page its link opens can say
 * what became of it (docs/decisions/112).
 *
 * Beside them, per address of the organization, the invitation e-mails of the last day
 * (`ORG#<org> / INVITEMAIL#<lowercased email>`): every invitation and re-send records its e-mail in
 * the transaction that issues the token, conditioned on the version it read, so the limit holds
 * across every Lambda instance (docs/decisions/109).
 *
 * Every change that spans two of them is one TransactWriteItems whose conditions name the state it
 * was decided on: a second invitation of one address, a second accept of one token, a rotation
 * racing a removal all find a condition failed and change nothing. Such a write answers `stale`;
 * the caller reads again and decides again.
 */
export const memberEntity = 'member';
export const memberEmailEntity = 'memberEmail';
export const invitationEntity = 'invitation';
export const invitationMailsEntity = 'invitationMails';

export interface MemberItem extends UnsubscribeKeyFields {
  pk: string;
  sk: string;
  entity: typeof memberEntity;
  id: string;
  organizationId: string;
  email: string;
  /** Lowercased address: the uniqueness item's key. */
  emailKey: string;
  name: string | null;
  role: MemberRole;
  status: Exclude<MemberStatus, 'removed'>;
  /** When the current invitation was sent (re-sending moves it). */
  invitedAt: string;
  acceptedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** SHA-256 of the live invitation token, while invited. */
  inviteTokenHash?: string;
  /** The id of the member's key item, while active. */
  keyId?: string;
  // E-mail notifications (functions/store/notifications.ts, docs/decisions/094).
  /** The event types the member chose, in the contract's order. */
  notifyEvents?: string[];
  /** Bumped by every change of `notifyEvents`: the condition of the next change. */
  notifyVersion?: number;
  notificationsUpdatedAt?: string;
  /** When the address was last verified; a suppression recorded after it stops mail again. */
  emailVerifiedAt?: string;
  /** The token of the link that verified it (a second click of it says "already verified"). */
  verifiedTokenHash?: string;
  /** SHA-256 of the pending verification link's token. */
  verifyTokenHash?: string;
  // The member's sealed, versioned key for its unsubscribe links (functions/store/unsubscribeKeys.ts, decision 110).
}

/** Who sent an invitation's link: a member (its name and address then), or the organization key when absent. */
export interface Inviter {
  memberId: string;
  name: string | null;
  email: string;
}

/** What ended a link before its expiry: accepted, rescinded (DELETE /members/{id}), or replaced by a re-send. */
export type InvitationEnd = 'used' | 'revoked' | 'replaced';

export interface InvitationItem {
  pk: string;
  sk: string;
  entity: typeof invitationEntity;
  organizationId: string;
  memberId: string;
  expiresAt: string;
  /** Epoch seconds, 30 days after `expiresAt`: DynamoDB deletes the item some time after; `expiresAt` is what is checked. */
  ttl: number;
  createdAt: string;
  /** Absent for the organization key (and for links issued before inviters were kept). */
  invitedBy?: Inviter;
  /** Set once, by the write that ends the link; absent while it can be accepted. */
  endedAs?: InvitationEnd;
  endedAt?: string;
}

/** How long an ended or expired link's item is kept after its expiry, so its page can still say why it does not work. */
export const invitationTombstoneSeconds = 30 * 24 * 3600;

export type Stale = 'stale';

/** 429 of the re-send limit: one more invitation e-mail may go to the address after this many seconds. */
function invitationMailLimited(retryAfterSeconds: number): ApiError {
  return new ApiError(
    'rate_limited',
    `Too many invitation e-mails to this address: at most 2 a minute and 6 a day. Retry after ${retryAfterSeconds} seconds.`,
    { retryAfterSeconds },
    { 'retry-after': String(retryAfterSeconds) },
  );
}

export function memberView(member: MemberItem, status: MemberStatus = member.status): Member {
  return {
    id: member.id,
    email: member.email,
    name: member.name,
    role: member.role,
    status,
    invitedAt: member.invitedAt,
    acceptedAt: member.acceptedAt,
    createdAt: member.createdAt,
  };
}

// ---- Reading -----------------------------------------------------------------------------

/**
 * Optimistic concurrency for a change to one member: read it, let `act` decide and write; when the
 * write finds the member changed meanwhile (`stale`), read again and decide again. 404 when it does
 * not exist (or belongs to another organization); 503 if it keeps changing.
 */
export async function changeMember<T>(
  organizationId: string,
  memberId: string,
  act: (member: MemberItem) => Promise<T | Stale>,
): Promise<T> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const member = await getMember(organizationId, memberId);
    if (!member) throw notFound('member');
    const result = await act(member);
    if (result !== 'stale') return result;
  }
  throw new ApiError('unavailable', 'The member changed while this request was changing it; retry.');
}

export async function getMember(organizationId: string, memberId: string): Promise<MemberItem | undefined> {
  const result = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.member(organizationId, memberId), ConsistentRead: true }),
  );
  return result.Item as MemberItem | undefined;
}

/** Every member of the organization, oldest first (member ids are ULIDs). A team is bounded, so this is the full set. */
export async function listMembers(organizationId: string): Promise<MemberItem[]> {
  const items = await queryPrefix(keys.organization(organizationId).pk, 'MEMBER#', { ConsistentRead: true });
  return items as unknown as MemberItem[];
}

async function getInvitation(tokenHash: string): Promise<InvitationItem | undefined> {
  const result = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.invitation(tokenHash), ConsistentRead: true }));
  return result.Item as InvitationItem | undefined;
}

// ---- Writing -----------------------------------------------------------------------------

/** All or nothing; `stale` when a condition failed (the state the write was decided on moved). */
export async function transact(items: TransactItem[]): Promise<true | Stale> {
  return (await transactWithReasons(items)) === true ? true : 'stale';
}

/** As `transact`, saying which item's condition failed (the code per item, in order). */
async function transactWithReasons(items: TransactItem[]): Promise<true | { reasons: (string | undefined)[] }> {
  try {
    await transactWrite(items);
    return true;
  } catch (error) {
    const reasons = cancellationReasons(error);
    if (reasons?.some((reason) => reason.Code === 'ConditionalCheckFailed')) return { reasons: reasons.map((reason) => reason.Code) };
    throw error;
  }
}

function invitationItem(input: { organizationId: string; memberId: string; tokenHash: string; expiresAt: Date; now: Date; invitedBy?: Inviter }): InvitationItem {
  return {
    ...keys.invitation(input.tokenHash),
    entity: invitationEntity,
    organizationId: input.organizationId,
    memberId: input.memberId,
    expiresAt: input.expiresAt.toISOString(),
    ttl: Math.ceil(input.expiresAt.getTime() / 1000) + invitationTombstoneSeconds,
    createdAt: input.now.toISOString(),
    ...(input.invitedBy ? { invitedBy: input.invitedBy } : {}),
  };
}

/**
 * The write that ends a link still open (`attribute_not_exists(endedAs)`): a mark, not a delete, so
 * its page can say which. Only for an item read to exist, so no write makes a bare item of a key.
 */
function endInvitation(tokenHash: string, endedAs: InvitationEnd, at: string, extraCondition?: { expression: string; values: Record<string, unknown> }): TransactItem {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.invitation(tokenHash),
      UpdateExpression: 'SET endedAs = :ended, endedAt = :at',
      ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(endedAs)${extraCondition ? ` AND ${extraCondition.expression}` : ''}`,
      ExpressionAttributeValues: { ':ended': endedAs, ':at': at, ...extraCondition?.values },
    },
  };
}

/** The open item of a member's pending link, if it is still there (TTL may have removed an old one). */
async function openInvitation(member: MemberItem): Promise<InvitationItem | undefined> {
  if (!member.inviteTokenHash) return undefined;
  const invitation = await getInvitation(member.inviteTokenHash);
  return invitation && !invitation.endedAs ? invitation : undefined;
}

/** The inviter as the invitation keeps it: the calling member, or none for the organization key. */
export async function inviterOf(caller: { organizationId: string; memberId?: string }): Promise<Inviter | undefined> {
  if (!caller.memberId) return undefined;
  const member = await getMember(caller.organizationId, caller.memberId);
  return member ? { memberId: member.id, name: member.name, email: member.email } : undefined;
}

export interface IssuedInvitation {
  member: MemberItem;
  /** The credential, for the e-mail only: never stored, never logged. */
  token: string;
  expiresAt: Date;
  /** The e-mail's place in the re-send limit, given back if it is not sent (releaseInvitationMail). */
  mailedAt: string;
}

interface InvitationMails {
  sentAt: string[];
  /** Absent before the first e-mail to the address: the condition of the next write. */
  version?: number;
}

async function getInvitationMails(organizationId: string, email: string): Promise<InvitationMails> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.invitationMails(organizationId, email), ConsistentRead: true }));
  return { sentAt: (Item?.sentAt as string[] | undefined) ?? [], version: Item?.version as number | undefined };
}

function invitationMailsPut(organizationId: string, email: string, read: InvitationMails, sentAt: string[], now: Date): TransactItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...keys.invitationMails(organizationId, email),
        entity: invitationMailsEntity,
        organizationId,
        sentAt,
        version: (read.version ?? 0) + 1,
        ttl: Math.ceil(now.getTime() / 1000) + invitationMailMemorySeconds,
      },
      ConditionExpression: read.version === undefined ? 'attribute_not_exists(pk)' : '#version = :version',
      ...(read.version === undefined ? {} : { ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': read.version } }),
    },
  };
}

/**
 * An invitation e-mail the transport did not take (or the suppression list stopped) does not count:
 * its time is taken out again, on the condition that the record is as read.
 */
export async function releaseInvitationMail(organizationId: string, email: string, mailedAt: string): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const read = await getInvitationMails(organizationId, email);
    if (!read.sentAt.includes(mailedAt)) return;
    const { Put } = invitationMailsPut(organizationId, email, read, read.sentAt.filter((at) => at !== mailedAt), new Date());
    try {
      await dynamo().send(new PutCommand(Put!));
      return;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

/**
 * The member (invited), the address's uniqueness item, the token item and the address's e-mail
 * record, in one transaction: of two invitations of one address (in any spelling of its case),
 * exactly one is written. 429 when the address has had its invitation e-mails (invitationMailWait).
 */
export async function createInvitation(input: {
  organizationId: string;
  email: string;
  name: string | null;
  role: MemberRole;
  ttlSeconds: number;
  invitedBy?: Inviter;
  now?: Date;
}): Promise<IssuedInvitation | 'email_taken'> {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const mails = await getInvitationMails(input.organizationId, input.email);
    const now = input.now ?? new Date();
    const wait = invitationMailWait(mails.sentAt, now);
    if (wait > 0) throw invitationMailLimited(wait);
    const created = await writeInvitation(input, mails, now);
    // Another e-mail to the address was recorded meanwhile: decide again on it.
    if (created !== 'stale') return created;
  }
  throw new ApiError('unavailable', 'Invitations to this address changed while this request was making one; retry.');
}

async function writeInvitation(
  input: { organizationId: string; email: string; name: string | null; role: MemberRole; ttlSeconds: number; invitedBy?: Inviter },
  mails: InvitationMails,
  now: Date,
): Promise<IssuedInvitation | 'email_taken' | Stale> {
  const at = now.toISOString();
  const id = `mem_${ulid(now.getTime())}`;
  const { token, hash } = newInvitationToken();
  const expiresAt = invitationExpiry(now, input.ttlSeconds);
  const member: MemberItem = {
    ...keys.member(input.organizationId, id),
    entity: memberEntity,
    id,
    organizationId: input.organizationId,
    email: input.email,
    emailKey: emailKey(input.email),
    name: input.name,
    role: input.role,
    status: 'invited',
    invitedAt: at,
    acceptedAt: null,
    createdAt: at,
    updatedAt: at,
    inviteTokenHash: hash,
  };
  const written = await writeCounted(input.organizationId, 'members', [
    { Put: { TableName: tableName(), Item: member, ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Put: {
        TableName: tableName(),
        Item: { ...keys.memberEmail(input.organizationId, member.emailKey), entity: memberEmailEntity, organizationId: input.organizationId, memberId: id, createdAt: at },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    { Put: { TableName: tableName(), Item: invitationItem({ organizationId: input.organizationId, memberId: id, tokenHash: hash, expiresAt, now, invitedBy: input.invitedBy }) } },
    invitationMailsPut(input.organizationId, input.email, mails, withInvitationMail(mails.sentAt, now), now),
  ], 1);
  // The team's count is in the same transaction: a team at its cap takes no one more (decision 108).
  if (written.outcome === 'full') throw listFull('members', written.cap);
  if (written.outcome === 'refused') return written.reasons[1]?.Code === 'ConditionalCheckFailed' ? 'email_taken' : 'stale';
  return { member, token, expiresAt, mailedAt: at };
}

/**
 * A fresh token for a member still invited, decided on `member` as read: the old token item is
 * marked `replaced` in the same transaction, so the old link stops working the moment the new one
 * exists (and its page says a newer one was sent). 429 when the address has had its invitation
 * e-mails (invitationMailWait); `stale` when the member or the address's e-mails moved meanwhile.
 */
export async function reissueInvitation(member: MemberItem, ttlSeconds: number, invitedBy?: Inviter, now = new Date()): Promise<IssuedInvitation | Stale> {
  if (member.status !== 'invited' || !member.inviteTokenHash) return 'stale';
  const old = await openInvitation(member);
  const mails = await getInvitationMails(member.organizationId, member.email);
  const wait = invitationMailWait(mails.sentAt, now);
  if (wait > 0) throw invitationMailLimited(wait);
  const { token, hash } = newInvitationToken();
  const expiresAt = invitationExpiry(now, ttlSeconds);
  const at = now.toISOString();
  const written = await transact([
    {
      Update: {
        TableName: tableName(),
        Key: keys.member(member.organizationId, member.id),
        UpdateExpression: 'SET inviteTokenHash = :new, invitedAt = :now, updatedAt = :now',
        ConditionExpression: '#status = :invited AND inviteTokenHash = :old',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':new': hash, ':old': member.inviteTokenHash, ':invited': 'invited', ':now': at },
      },
    },
    // An old token long expired may be gone already (TTL): then there is nothing to mark.
    ...(old ? [endInvitation(member.inviteTokenHash, 'replaced', at)] : []),
    { Put: { TableName: tableName(), Item: invitationItem({ organizationId: member.organizationId, memberId: member.id, tokenHash: hash, expiresAt, now, invitedBy }) } },
    invitationMailsPut(member.organizationId, member.email, mails, withInvitationMail(mails.sentAt, now), now),
  ]);
  if (written === 'stale') return 'stale';
  return { member: { ...member, inviteTokenHash: hash, invitedAt: at, updatedAt: at }, token, expiresAt, mailedAt: at };
}

export interface AcceptedInvitation {
  member: MemberItem;
  /** The member's key, shown once. */
  apiKey: string;
}

/** Why a token cannot be accepted: ended (used, revoked, replaced), past its expiry, or never issued (or long gone). */
export type InvitationRefusal = InvitationEnd | 'expired' | 'unknown';

/** Why not, with the item when there is one (its organization, its expiry). */
export interface InvitationRefused {
  refused: InvitationRefusal;
  invitation?: InvitationItem;
}

export type InvitationLookup =
  | { outcome: 'open'; invitation: InvitationItem; member: MemberItem }
  | { outcome: InvitationRefusal; invitation?: InvitationItem };

/**
 * What a token's link is now: open (with its member as read), or why not. The item's mark says which
 * end it met; an item from before the marks is told by its member (gone: rescinded; on another token:
 * replaced; active: used).
 */
export async function findInvitation(token: string, now = new Date()): Promise<InvitationLookup> {
  const hash = hashInvitationToken(token);
  const invitation = await getInvitation(hash);
  if (!invitation) return { outcome: 'unknown' };
  if (invitation.endedAs) return { outcome: invitation.endedAs, invitation };
  if (Date.parse(invitation.expiresAt) <= now.getTime()) return { outcome: 'expired', invitation };
  const member = await getMember(invitation.organizationId, invitation.memberId);
  if (!member) return { outcome: 'revoked', invitation };
  if (member.status !== 'invited') return { outcome: 'used', invitation };
  if (member.inviteTokenHash !== hash) return { outcome: 'replaced', invitation };
  return { outcome: 'open', invitation, member };
}

/**
 * Single use under any concurrency: marking the token item used (on the condition that it exists,
 * is not marked and has not expired), activating the member (on the condition that it is still
 * invited with this token and this role) and putting its key item are one transaction, so of many
 * accepts of one token exactly one issues a key. Otherwise it answers why not (findInvitation).
 */
export async function acceptInvitation(token: string, environment: KeyEnvironment, now = new Date()): Promise<AcceptedInvitation | InvitationRefused> {
  const hash = hashInvitationToken(token);
  // A lost condition is re-read: a role changed meanwhile is a reason to try again, a used token is not.
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const found = await findInvitation(token, now);
    if (found.outcome !== 'open') return { refused: found.outcome, invitation: found.invitation };
    const { member } = found;
    const issued = issueApiKey(environment, member.organizationId);
    const at = now.toISOString();
    const written = await transact([
      endInvitation(hash, 'used', at, { expression: 'expiresAt > :now', values: { ':now': at } }),
      {
        Update: {
          TableName: tableName(),
          Key: keys.member(member.organizationId, member.id),
          UpdateExpression: 'SET #status = :active, acceptedAt = :now, updatedAt = :now, keyId = :kid REMOVE inviteTokenHash',
          ConditionExpression: '#status = :invited AND inviteTokenHash = :hash AND #role = :role',
          ExpressionAttributeNames: { '#status': 'status', '#role': 'role' },
          ExpressionAttributeValues: { ':active': 'active', ':invited': 'invited', ':hash': hash, ':role': member.role, ':now': at, ':kid': issued.keyId },
        },
      },
      putApiKey(apiKeyItem(issued, { role: member.role, memberId: member.id }, at)),
    ]);
    if (written === true) {
      const { inviteTokenHash: _used, ...rest } = member;
      return { member: { ...rest, status: 'active', acceptedAt: at, updatedAt: at, keyId: issued.keyId }, apiKey: issued.apiKey };
    }
  }
  const last = await findInvitation(token, now);
  if (last.outcome === 'open') throw new ApiError('unavailable', 'The invitation changed while this request was accepting it; retry.');
  return { refused: last.outcome, invitation: last.invitation };
}

/** The member's role, and for an active member the role of its key in the same write, so the next request carries it. */
export async function changeMemberRole(member: MemberItem, role: MemberRole, now = new Date()): Promise<MemberItem | Stale> {
  const at = now.toISOString();
  const memberUpdate: TransactItem = {
    Update: {
      TableName: tableName(),
      Key: keys.member(member.organizationId, member.id),
      UpdateExpression: 'SET #role = :role, updatedAt = :now',
      ConditionExpression: member.keyId
        ? '#role = :old AND #status = :status AND keyId = :kid'
        : '#role = :old AND #status = :status AND attribute_not_exists(keyId)',
      ExpressionAttributeNames: { '#role': 'role', '#status': 'status' },
      ExpressionAttributeValues: {
        ':role': role,
        ':old': member.role,
        ':status': member.status,
        ':now': at,
        ...(member.keyId ? { ':kid': member.keyId } : {}),
      },
    },
  };
  const items: TransactItem[] = [memberUpdate];
  if (member.keyId) {
    items.push({
      Update: {
        TableName: tableName(),
        Key: keys.apiKey(member.organizationId, member.keyId),
        UpdateExpression: 'SET #role = :role',
        ConditionExpression: 'memberId = :memberId',
        ExpressionAttributeNames: { '#role': 'role' },
        ExpressionAttributeValues: { ':role': role, ':memberId': member.id },
      },
    });
  }
  if ((await transact(items)) === 'stale') return 'stale';
  return { ...member, role, updatedAt: at };
}

/**
 * Removes the member, its address's uniqueness item, and either ends its pending token (an invitation
 * rescinded: marked `revoked`) or its key (revoked: the next request with it is 401, on every instance).
 */
export async function removeMember(member: MemberItem, now = new Date()): Promise<true | Stale> {
  const invitation = await openInvitation(member);
  const condition = member.keyId
    ? { expression: '#status = :status AND #role = :role AND keyId = :ref', ref: member.keyId }
    : { expression: '#status = :status AND #role = :role AND inviteTokenHash = :ref', ref: member.inviteTokenHash ?? '' };
  const items: TransactItem[] = [
    {
      Delete: {
        TableName: tableName(),
        Key: keys.member(member.organizationId, member.id),
        ConditionExpression: condition.expression,
        ExpressionAttributeNames: { '#status': 'status', '#role': 'role' },
        ExpressionAttributeValues: { ':status': member.status, ':role': member.role, ':ref': condition.ref },
      },
    },
    { Delete: { TableName: tableName(), Key: keys.memberEmail(member.organizationId, member.emailKey) } },
  ];
  // A rescinded link is marked, not deleted: its page says it was withdrawn (docs/decisions/112).
  if (invitation) items.push(endInvitation(member.inviteTokenHash!, 'revoked', now.toISOString()));
  // Its e-mail choices and pending verification link go with it (the mailer also checks the member is still there).
  for (const eventType of notificationEventTypes) {
    items.push({ Delete: { TableName: tableName(), Key: keys.notificationSubscription(member.organizationId, eventType, member.id) } });
  }
  if (member.verifyTokenHash) items.push({ Delete: { TableName: tableName(), Key: keys.emailVerification(member.verifyTokenHash) } });
  if (member.keyId) {
    // No condition: the member's condition above already names this key.
    items.push({ Delete: { TableName: tableName(), Key: keys.apiKey(member.organizationId, member.keyId) } });
  }
  // One less on the team's count (decision 108), in the same transaction.
  return (await writeCounted(member.organizationId, 'members', items, -1)).outcome === 'written' ? true : 'stale';
}

export interface RotatedMemberKey {
  member: MemberItem;
  apiKey: string;
}

/**
 * A new key with the member's role in place of `callingKeyId`, in one transaction with the
 * member's record: the old key is 401 on the very next request. The member's unsubscribe key is
 * rotated with it (a new version, decision 110), so the links in e-mails sent before stop working
 * too: one action retires everything that speaks for the member. `stale` when the calling key is no
 * longer the member's (revoked or rotated meanwhile) or its unsubscribe key changed.
 */
export async function rotateMemberKey(member: MemberItem, callingKeyId: string, environment: KeyEnvironment, now = new Date()): Promise<RotatedMemberKey | Stale> {
  if (member.status !== 'active' || member.keyId !== callingKeyId) return 'stale';
  const issued = issueApiKey(environment, member.organizationId);
  const at = now.toISOString();
  const unsubscribeKey = hasUnsubscribeKey(member) ? await nextUnsubscribeKey(member) : undefined;
  const written = await transact([
    {
      Update: {
        TableName: tableName(),
        Key: keys.member(member.organizationId, member.id),
        UpdateExpression: unsubscribeKey
          ? 'SET keyId = :new, updatedAt = :now, notifyKeySealed = :sealed, notifyKeyVersion = :version REMOVE notifyKey'
          : 'SET keyId = :new, updatedAt = :now',
        ConditionExpression: `#status = :active AND keyId = :old AND #role = :role AND ${
          member.notifyKeyVersion === undefined ? 'attribute_not_exists(notifyKeyVersion)' : 'notifyKeyVersion = :previous'
        }`,
        ExpressionAttributeNames: { '#status': 'status', '#role': 'role' },
        ExpressionAttributeValues: {
          ':new': issued.keyId, ':old': callingKeyId, ':active': 'active', ':role': member.role, ':now': at,
          ...(unsubscribeKey ? { ':sealed': unsubscribeKey.sealed, ':version': unsubscribeKey.version } : {}),
          ...(member.notifyKeyVersion === undefined ? {} : { ':previous': member.notifyKeyVersion }),
        },
      },
    },
    {
      Delete: {
        TableName: tableName(),
        Key: keys.apiKey(member.organizationId, callingKeyId),
        ConditionExpression: 'memberId = :memberId',
        ExpressionAttributeValues: { ':memberId': member.id },
      },
    },
    putApiKey(apiKeyItem(issued, { role: member.role, memberId: member.id }, at)),
  ]);
  if (written === 'stale') return 'stale';
  const { notifyKey: _replaced, ...rest } = member;
  const rotated = unsubscribeKey ? { ...rest, notifyKeySealed: unsubscribeKey.sealed, notifyKeyVersion: unsubscribeKey.version } : member;
  return { member: { ...rotated, keyId: issued.keyId, updatedAt: at }, apiKey: issued.apiKey };
}
