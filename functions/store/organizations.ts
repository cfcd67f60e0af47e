import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ulid } from 'ulid';
import { issueApiKey, type IssuedApiKey, type KeyEnvironment } from '#core/apiKeys.ts';
import { buckets, type BucketLimit, type BucketName } from '#core/rateLimit.ts';
import type { Role } from '#core/permissions.ts';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';
import { newWalletId, walletItem } from './wallets.ts';

/**
 * The organization item holds what every request needs in one read: name, KYB status, the
 * hashes and roles of its live keys, its rate buckets and any raised limits (store/access.ts).
 */
export type KybStatus = 'pending' | 'approved';

export interface ApiKeyEntry {
  hash: string;
  role: Role;
  memberId?: string;
  prefix: string;
  createdAt: string;
}

export interface OrganizationItem {
  pk: string;
  sk: string;
  entity: 'organization';
  id: string;
  name: string;
  kybStatus: KybStatus;
  homeWalletId: string;
  createdAt: string;
  updatedAt: string;
  keys: Record<string, ApiKeyEntry>;
  /** Limits raised for this organization; a bucket not named here has the contract's default. */
  rateLimits: Partial<Record<BucketName, BucketLimit>>;
  tatInitiate?: number;
  tatWrite?: number;
  tatRead?: number;
  [attribute: string]: unknown;
}

export interface CreatedOrganization {
  organization: OrganizationItem;
  /** The organization key (role owner), shown once. */
  apiKey: IssuedApiKey;
}

export async function createOrganization(input: {
  name: string;
  kybStatus: KybStatus;
  environment: KeyEnvironment;
  now?: Date;
}): Promise<CreatedOrganization> {
  const createdAt = input.now ?? new Date();
  const now = createdAt.toISOString();
  const id = `org_${ulid()}`;
  const homeWalletId = newWalletId(createdAt);
  const apiKey = issueApiKey(input.environment, id);
  const organization: OrganizationItem = {
    ...keys.organization(id),
    entity: 'organization',
    id,
    name: input.name,
    kybStatus: input.kybStatus,
    homeWalletId,
    createdAt: now,
    updatedAt: now,
    keys: { [apiKey.keyId]: { hash: apiKey.hash, role: 'owner', prefix: apiKey.prefix, createdAt: now } },
    rateLimits: {},
  };
  await dynamo().send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: tableName(), Item: organization, ConditionExpression: 'attribute_not_exists(pk)' } },
        walletItem({ organizationId: id, walletId: homeWalletId, home: true, now: createdAt }),
      ],
    }),
  );
  return { organization, apiKey };
}

export async function getOrganization(organizationId: string): Promise<OrganizationItem | undefined> {
  const result = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.organization(organizationId) }));
  return result.Item as OrganizationItem | undefined;
}

/** Undefined when there is no such organization. */
export async function setKybStatus(organizationId: string, kybStatus: KybStatus, now = new Date()): Promise<OrganizationItem | undefined> {
  try {
    const result = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(organizationId),
        UpdateExpression: 'SET kybStatus = :status, updatedAt = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':status': kybStatus, ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes as OrganizationItem;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** A new key on the organization (a member key when `memberId` is given); shown once. */
export async function addApiKey(
  organizationId: string,
  grant: { role: Role; memberId?: string; environment: KeyEnvironment },
  now = new Date(),
): Promise<IssuedApiKey> {
  const issued = issueApiKey(grant.environment, organizationId);
  const entry: ApiKeyEntry = {
    hash: issued.hash,
    role: grant.role,
    prefix: issued.prefix,
    createdAt: now.toISOString(),
    ...(grant.memberId ? { memberId: grant.memberId } : {}),
  };
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.organization(organizationId),
      UpdateExpression: 'SET #keys.#kid = :entry, updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#keys': 'keys', '#kid': issued.keyId },
      ExpressionAttributeValues: { ':entry': entry, ':now': now.toISOString() },
    }),
  );
  return issued;
}

/** Revocation is the removal of the hash: the next request with that key is 401, on every instance. */
export async function revokeApiKey(organizationId: string, keyId: string, now = new Date()): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.organization(organizationId),
      UpdateExpression: 'REMOVE #keys.#kid SET updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#keys': 'keys', '#kid': keyId },
      ExpressionAttributeValues: { ':now': now.toISOString() },
    }),
  );
}

/** Raise (or restore, with undefined) an organization's limit for one bucket. False when there is no such organization. */
export async function setRateLimit(organizationId: string, bucket: BucketName, limit: BucketLimit | undefined): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(organizationId),
        UpdateExpression: limit ? 'SET rateLimits.#bucket = :limit' : 'REMOVE rateLimits.#bucket',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#bucket': bucket },
        ...(limit ? { ExpressionAttributeValues: { ':limit': limit } } : {}),
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Every bucket of the organization to one limit (tests and benches lift them so their own volume is not what they measure). */
export async function setRateLimits(organizationId: string, limit: BucketLimit): Promise<void> {
  for (const bucket of buckets) await setRateLimit(organizationId, bucket, limit);
}

/** The organization key: role owner and no member. */
export function isOrganizationKey(entry: ApiKeyEntry): boolean {
  return entry.role === 'owner' && !entry.memberId;
}

/**
 * POST /api-keys/rotate: a new organization key in place of the calling one, in one UpdateItem on
 * the organization item, on the condition that the calling key is still there with the hash it
 * was presented with. Undefined when it is not (rotated or revoked meanwhile): the caller is 401.
 */
export async function rotateOrganizationKey(
  organizationId: string,
  calling: { keyId: string; hash: string },
  environment: KeyEnvironment,
  now = new Date(),
): Promise<IssuedApiKey | undefined> {
  const issued = issueApiKey(environment, organizationId);
  const at = now.toISOString();
  const entry: ApiKeyEntry = { hash: issued.hash, role: 'owner', prefix: issued.prefix, createdAt: at };
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(organizationId),
        UpdateExpression: 'SET #keys.#new = :entry, updatedAt = :now REMOVE #keys.#old',
        ConditionExpression: '#keys.#old.#hash = :hash AND #keys.#old.#role = :owner AND attribute_not_exists(#keys.#old.memberId)',
        ExpressionAttributeNames: { '#keys': 'keys', '#new': issued.keyId, '#old': calling.keyId, '#hash': 'hash', '#role': 'role' },
        ExpressionAttributeValues: { ':entry': entry, ':hash': calling.hash, ':owner': 'owner', ':now': at },
      }),
    );
    return issued;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/**
 * The ops CLI's way back in for an organization whose key was lost: a new organization key, and
 * every previous organization key (role owner, no member) revoked in the same UpdateItem. Member
 * keys are left alone. Undefined when there is no such organization.
 */
export async function replaceOrganizationKeys(
  organizationId: string,
  environment: KeyEnvironment,
  now = new Date(),
): Promise<{ apiKey: IssuedApiKey; revokedKeyIds: string[] } | undefined> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    const organization = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.organization(organizationId), ConsistentRead: true }),
    );
    const item = organization.Item as OrganizationItem | undefined;
    if (!item) return undefined;
    const revokedKeyIds = Object.entries(item.keys ?? {}).filter(([, entry]) => isOrganizationKey(entry)).map(([keyId]) => keyId);
    const issued = issueApiKey(environment, organizationId);
    const at = now.toISOString();
    const names: Record<string, string> = { '#keys': 'keys', '#new': issued.keyId };
    revokedKeyIds.forEach((keyId, index) => (names[`#old${index}`] = keyId));
    const removals = revokedKeyIds.map((_, index) => `#keys.#old${index}`);
    try {
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.organization(organizationId),
          UpdateExpression: `SET #keys.#new = :entry, updatedAt = :now${removals.length ? ` REMOVE ${removals.join(', ')}` : ''}`,
          // The keys revoked are the ones read: one added meanwhile makes this try again.
          ConditionExpression: ['attribute_exists(pk)', 'updatedAt = :read', ...removals.map((path) => `attribute_exists(${path})`)].join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: {
            ':entry': { hash: issued.hash, role: 'owner', prefix: issued.prefix, createdAt: at } satisfies ApiKeyEntry,
            ':now': at,
            ':read': item.updatedAt,
          },
        }),
      );
      return { apiKey: issued, revokedKeyIds };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  throw new Error(`the keys of ${organizationId} kept changing; try again`);
}
