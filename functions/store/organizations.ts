import { DeleteCommand, GetCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ulid } from 'ulid';
import { issueApiKey, type IssuedApiKey, type KeyEnvironment } from '#domain/apiKeys.ts';
import { buckets, type BucketLimit, type BucketName } from '#domain/rateLimit.ts';
import type { Role } from '#domain/permissions.ts';
import { cancellationReasons, conditionally, dynamo, putIfAbsent, queryPrefix, tableName, type TransactItem, transactWrite } from './client.ts';
import { keys } from './keys.ts';
import { newWalletId, walletItem } from './wallets.ts';

/**
 * The organization item holds what every request needs besides its key: name, KYB status, its
 * rate buckets and any raised limits. Each key is an item of its own (decision 077), so the
 * organization item, rewritten by every request's rate charge, stays the same size whatever the
 * team's (store/access.ts).
 */
export type KybStatus = 'pending' | 'approved';

export const apiKeyEntity = 'apiKey';

/** One live key: revoking it is deleting the item, so the next request with it is 401 everywhere. */
export interface ApiKeyItem {
  pk: string;
  sk: string;
  entity: typeof apiKeyEntity;
  organizationId: string;
  keyId: string;
  hash: string;
  role: Role;
  /** Set for member keys; absent for the organization key. */
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
  /** Limits raised for this organization; a bucket not named here has the contract's default. */
  rateLimits: Partial<Record<BucketName, BucketLimit>>;
  tatInitiate?: number;
  tatWrite?: number;
  tatRead?: number;
  [attribute: string]: unknown;
}

export function apiKeyItem(issued: IssuedApiKey, grant: { role: Role; memberId?: string }, at: string): ApiKeyItem {
  return {
    ...keys.apiKey(issued.organizationId, issued.keyId),
    entity: apiKeyEntity,
    organizationId: issued.organizationId,
    keyId: issued.keyId,
    hash: issued.hash,
    role: grant.role,
    ...(grant.memberId ? { memberId: grant.memberId } : {}),
    prefix: issued.prefix,
    createdAt: at,
  };
}

/** A new key's Put, for a transaction: a key id is written once. */
export function putApiKey(item: ApiKeyItem): TransactItem {
  return { Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** Strongly consistent: a key deleted a moment ago is not found (decision 051: 401 on the very next request). */
export async function getApiKey(organizationId: string, keyId: string): Promise<ApiKeyItem | undefined> {
  const result = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.apiKey(organizationId, keyId), ConsistentRead: true }));
  return result.Item as ApiKeyItem | undefined;
}

/** Every live key of the organization, member keys included. */
export async function listApiKeys(organizationId: string): Promise<ApiKeyItem[]> {
  const items = await queryPrefix(keys.organization(organizationId).pk, 'APIKEY#', { ConsistentRead: true });
  return items as unknown as ApiKeyItem[];
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
    rateLimits: {},
  };
  await transactWrite([
    { Put: { TableName: tableName(), Item: organization, ConditionExpression: 'attribute_not_exists(pk)' } },
    walletItem({ organizationId: id, walletId: homeWalletId, home: true, now: createdAt }),
    putApiKey(apiKeyItem(apiKey, { role: 'owner' }, now)),
  ]);
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
  await transactWrite([
    { ConditionCheck: { TableName: tableName(), Key: keys.organization(organizationId), ConditionExpression: 'attribute_exists(pk)' } },
    putApiKey(apiKeyItem(issued, grant, now.toISOString())),
  ]);
  return issued;
}

/** Revocation is the deletion of the key item: the next request with that key is 401, on every instance. */
export async function revokeApiKey(organizationId: string, keyId: string): Promise<void> {
  await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.apiKey(organizationId, keyId) }));
}

/** Raise (or restore, with undefined) an organization's limit for one bucket, its bucket full. False when there is no such organization. */
export async function setRateLimit(organizationId: string, bucket: BucketName, limit: BucketLimit | undefined): Promise<boolean> {
  return conditionally(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(organizationId),
        // A new limit starts with a full bucket: a TAT run far ahead under the old, slower limit would
        // otherwise keep refusing for as long as that limit took to drain.
        UpdateExpression: limit ? 'SET rateLimits.#bucket = :limit REMOVE #tat' : 'REMOVE rateLimits.#bucket, #tat',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#bucket': bucket, '#tat': `tat${bucket.charAt(0).toUpperCase()}${bucket.slice(1)}` },
        ...(limit ? { ExpressionAttributeValues: { ':limit': limit } } : {}),
      }),
    ),
  );
}

/** Every bucket of the organization to one limit (tests and benches lift them so their own volume is not what they measure). */
export async function setRateLimits(organizationId: string, limit: BucketLimit): Promise<void> {
  for (const bucket of buckets) await setRateLimit(organizationId, bucket, limit);
}

/** The organization key: role owner and no member. */
export function isOrganizationKey(entry: Pick<ApiKeyItem, 'role' | 'memberId'>): boolean {
  return entry.role === 'owner' && !entry.memberId;
}

/** True when the transaction was refused for a condition (the state it was decided on moved), not for contention. */
function conditionFailed(error: unknown): boolean {
  return cancellationReasons(error)?.some((reason) => reason.Code === 'ConditionalCheckFailed') ?? false;
}

/**
 * POST /api-keys/rotate: a new organization key in place of the calling one, in one transaction
 * over the two key items, on the condition that the calling key is still there with the hash it
 * was presented with. Undefined when it is not (rotated or revoked meanwhile): the caller is 401.
 */
export async function rotateOrganizationKey(
  organizationId: string,
  calling: { keyId: string; hash: string },
  environment: KeyEnvironment,
  now = new Date(),
): Promise<IssuedApiKey | undefined> {
  const issued = issueApiKey(environment, organizationId);
  try {
    await transactWrite([
      {
        Delete: {
          TableName: tableName(),
          Key: keys.apiKey(organizationId, calling.keyId),
          ConditionExpression: '#hash = :hash AND #role = :owner AND attribute_not_exists(memberId)',
          ExpressionAttributeNames: { '#hash': 'hash', '#role': 'role' },
          ExpressionAttributeValues: { ':hash': calling.hash, ':owner': 'owner' },
        },
      },
      putApiKey(apiKeyItem(issued, { role: 'owner' }, now.toISOString())),
    ]);
    return issued;
  } catch (error) {
    if (conditionFailed(error)) return undefined;
    throw error;
  }
}

/**
 * The ops CLI's way back in for an organization whose key was lost: a new organization key, and
 * every previous organization key (role owner, no member) revoked in the same transaction. Member
 * keys are left alone. Undefined when there is no such organization.
 */
export async function replaceOrganizationKeys(
  organizationId: string,
  environment: KeyEnvironment,
  now = new Date(),
): Promise<{ apiKey: IssuedApiKey; revokedKeyIds: string[] } | undefined> {
  for (let attempt = 0; attempt < 5; attempt += 1) {
    if (!(await getOrganization(organizationId))) return undefined;
    const revoked = (await listApiKeys(organizationId)).filter(isOrganizationKey);
    // A transaction holds at most 100 items; an organization has one organization key, rarely two.
    if (revoked.length > 98) throw new Error(`${organizationId} has ${revoked.length} organization keys; revoke some first`);
    const issued = issueApiKey(environment, organizationId);
    try {
      await transactWrite([
        { ConditionCheck: { TableName: tableName(), Key: keys.organization(organizationId), ConditionExpression: 'attribute_exists(pk)' } },
        putApiKey(apiKeyItem(issued, { role: 'owner' }, now.toISOString())),
        // The keys revoked are the ones read: one rotated meanwhile makes this try again.
        ...revoked.map((key): TransactItem => ({
          Delete: {
            TableName: tableName(),
            Key: keys.apiKey(organizationId, key.keyId),
            ConditionExpression: '#hash = :hash',
            ExpressionAttributeNames: { '#hash': 'hash' },
            ExpressionAttributeValues: { ':hash': key.hash },
          },
        })),
      ]);
      return { apiKey: issued, revokedKeyIds: revoked.map((key) => key.keyId) };
    } catch (error) {
      if (!conditionFailed(error)) throw error;
    }
  }
  throw new Error(`the keys of ${organizationId} kept changing; try again`);
}

/**
 * Organizations written before decision 077 kept their keys in a `keys` map on the organization
 * item (keyId → hash, role, memberId?, prefix, createdAt). Each entry becomes a key item, then the
 * map is removed; running it again changes nothing. Answers how many keys were moved.
 */
export async function moveLegacyKeys(organizationId: string): Promise<number> {
  const result = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.organization(organizationId), ConsistentRead: true }));
  const legacy = result.Item?.keys as Record<string, Omit<ApiKeyItem, 'pk' | 'sk' | 'entity' | 'organizationId' | 'keyId'>> | undefined;
  if (!legacy) return 0;
  for (const [keyId, entry] of Object.entries(legacy)) {
    const item: ApiKeyItem = { ...keys.apiKey(organizationId, keyId), entity: apiKeyEntity, organizationId, keyId, ...entry };
    await putIfAbsent(item);
  }
  await dynamo().send(
    new UpdateCommand({ TableName: tableName(), Key: keys.organization(organizationId), UpdateExpression: 'REMOVE #keys', ExpressionAttributeNames: { '#keys': 'keys' } }),
  );
  return Object.keys(legacy).length;
}

/** Every organization of the table still in the old layout (ops CLI `org migrate-keys`, `npm start` with DATA_DIR). */
export async function moveAllLegacyKeys(): Promise<{ organizations: number; keys: number }> {
  const moved = { organizations: 0, keys: 0 };
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'entity = :organization AND attribute_exists(#keys)',
        ExpressionAttributeNames: { '#keys': 'keys' },
        ExpressionAttributeValues: { ':organization': 'organization' },
        ProjectionExpression: 'id',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      moved.keys += await moveLegacyKeys(item.id as string);
      moved.organizations += 1;
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return moved;
}
