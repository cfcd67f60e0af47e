import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { ulid } from 'ulid';
import { issueApiKey, type IssuedApiKey, type KeyEnvironment } from '#core/apiKeys.ts';
import type { BucketLimit, BucketName } from '#core/rateLimit.ts';
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
