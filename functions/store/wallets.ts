import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { monotonicFactory } from 'ulid';
import { dynamo, queryPrefix, tableName } from './client.ts';
import { keys } from './keys.ts';
import { newOutboxEvent, outboxPut, type OutboxEvent } from './outbox.ts';
import type { WalletAccount } from '#schemas/wallets.ts';

/**
 * Wallet items: `ORG#<org> / WALLET#<id>`. A wallet is created `provisioning` (inside the
 * organization's creation transaction) and becomes `active` when the walletProvisioning
 * workflow has opened it at the custody provider; the contract shows `active` and `disabled`,
 * `provisioning` is what a reader sees in between (docs/decisions/022-wallet-provisioning.md).
 */
export const walletEntity = 'wallet';

export type WalletStatus = 'provisioning' | 'active' | 'disabled';

/**
 * The contract's "Wallet or issuer account" as stored. Once active it is exactly the
 * `WalletAccount` GET /wallets/:id answers (schemas/wallets.ts); `kind` is `wallet`
 * (docs/decisions/030).
 */
export interface Wallet {
  id: string;
  kind: 'wallet';
  provider: string;
  externalId: string | null;
  label: string | null;
  currencies: string[];
  address: string | null;
  chain: string | null;
  status: WalletStatus;
  createdAt: string;
}

export interface WalletRecord extends Wallet {
  organizationId: string;
  home: boolean;
}

/** Lookups by the provider's handle (GET /wallets/:walletId accepts either id). */
export const walletExternalKey = (externalId: string) => `WALLET_EXTERNAL#${externalId}`;

const nextUlid = monotonicFactory();

export function newWalletId(now = new Date()): string {
  return `wal_${nextUlid(now.getTime())}`;
}

/** The Put that creates a provisioning wallet; goes in the same transaction as its organization. */
export function walletItem(input: {
  organizationId: string;
  walletId: string;
  label?: string | null;
  home?: boolean;
  provider?: string;
  now?: Date;
}) {
  const item: Record<string, unknown> = {
    ...keys.wallet(input.organizationId, input.walletId),
    entity: walletEntity,
    organizationId: input.organizationId,
    id: input.walletId,
    kind: 'wallet',
    provider: input.provider ?? 'simulated-custody',
    externalId: null,
    label: input.label ?? null,
    currencies: ['USDC'],
    address: null,
    chain: null,
    status: 'provisioning' satisfies WalletStatus,
    createdAt: (input.now ?? new Date()).toISOString(),
  };
  // Only the home wallet carries the flag, so "which wallet is home" stays a plain attribute test.
  if (input.home) item.home = true;
  return {
    Put: { TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' },
  };
}

export function walletView(record: WalletRecord): Wallet {
  const { id, kind, provider, externalId, label, currencies, address, chain, status, createdAt } = record;
  return { id, kind, provider, externalId, label, currencies, address, chain, status, createdAt };
}

function fromItem(item: Record<string, unknown>): WalletRecord {
  return {
    organizationId: item.organizationId as string,
    id: item.id as string,
    kind: 'wallet',
    provider: item.provider as string,
    externalId: (item.externalId as string | null | undefined) ?? null,
    label: (item.label as string | null | undefined) ?? null,
    currencies: (item.currencies as string[] | undefined) ?? [],
    address: (item.address as string | null | undefined) ?? null,
    chain: (item.chain as string | null | undefined) ?? null,
    status: item.status as WalletStatus,
    createdAt: item.createdAt as string,
    home: item.home === true,
  };
}

/** Strongly consistent: workflow tasks decide on it. */
export async function getWallet(organizationId: string, walletId: string): Promise<WalletRecord | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.wallet(organizationId, walletId), ConsistentRead: true }),
  );
  return Item ? fromItem(Item) : undefined;
}

/**
 * By the provider's handle, within one organization (another organization's wallet is not found):
 * the index names the wallet, the table holds it (decision 127).
 */
export async function getWalletByExternalId(organizationId: string, externalId: string): Promise<WalletRecord | undefined> {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2v2',
      KeyConditionExpression: 'gsi2pk = :pk AND gsi2sk = :sk',
      ExpressionAttributeValues: { ':pk': walletExternalKey(externalId), ':sk': `ORG#${organizationId}` },
      ProjectionExpression: 'id',
    }),
  );
  const item = Items?.[0];
  return item ? getWallet(organizationId, String(item.id)) : undefined;
}

/**
 * By the provider's handle alone, whichever organization holds it: what a custody notification
 * (an on-chain deposit) names. Undefined when no wallet has that handle.
 */
export async function walletOfExternalId(externalId: string): Promise<WalletRecord | undefined> {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: 'gsi2v2',
      KeyConditionExpression: 'gsi2pk = :pk',
      ExpressionAttributeValues: { ':pk': walletExternalKey(externalId) },
      ProjectionExpression: 'organizationId, id',
    }),
  );
  const item = Items?.[0];
  // The index is eventually consistent: read the wallet itself once found.
  return item ? getWallet(String(item.organizationId), String(item.id)) : undefined;
}

/**
 * GET /wallets/:walletId takes the service's id or the provider's `externalId`: the id first (one
 * strongly consistent GetItem), the handle second. Both reads are scoped by the organization, so
 * another organization's wallet is not found either way (ids too long for a key are refused by PathId).
 */
export async function findWallet(organizationId: string, idOrExternalId: string): Promise<WalletRecord | undefined> {
  return (await getWallet(organizationId, idOrExternalId)) ?? (await getWalletByExternalId(organizationId, idOrExternalId));
}

/**
 * Every wallet of the organization, oldest first (the key order of `wal_<ulid>`), all pages. No
 * cursor: wallets are a list bounded per organization, returned whole with `count` (Conventions, 12).
 */
export async function listWallets(organizationId: string): Promise<WalletRecord[]> {
  const { pk, sk: prefix } = keys.wallet(organizationId, '');
  const items = await queryPrefix(pk, prefix, {
    FilterExpression: 'entity = :entity',
    ExpressionAttributeValues: { ':entity': walletEntity },
    ConsistentRead: true,
  });
  return items.map(fromItem);
}

/**
 * provisioning → active and its `wallet.activated` event, in one TransactWriteItems. The
 * condition on the expected status makes a second delivery fail the condition instead of
 * writing a second event. `opened` is what the custodian answered (the custody port's
 * OpenedWallet), as the store keeps it: the store sits below the ports and names no port's type.
 */
export function activateWalletTransaction(current: WalletRecord, opened: { externalId: string; address: string; chain: string }, now = new Date()) {
  const wallet: WalletAccount = {
    ...walletView(current),
    externalId: opened.externalId,
    address: opened.address,
    chain: opened.chain,
    status: 'active',
  };
  const event: OutboxEvent<WalletAccount> = newOutboxEvent('wallet.activated', current.organizationId, wallet, now);
  const transactItems = [
    {
      Update: {
        TableName: tableName(),
        Key: keys.wallet(current.organizationId, current.id),
        UpdateExpression:
          'SET #status = :active, externalId = :externalId, address = :address, chain = :chain, ' +
          'gsi2pk = :gsi2pk, gsi2sk = :gsi2sk, updatedAt = :now',
        ConditionExpression: '#status = :provisioning',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':active': 'active',
          ':provisioning': 'provisioning',
          ':externalId': opened.externalId,
          ':address': opened.address,
          ':chain': opened.chain,
          ':gsi2pk': walletExternalKey(opened.externalId),
          ':gsi2sk': `ORG#${current.organizationId}`,
          ':now': now.toISOString(),
        },
      },
    },
    outboxPut(event),
  ];
  return { transactItems, wallet, event };
}

/** Task errors: their names are what the workflow's Retry and Catch match on. */
export class WalletNotFound extends Error {
  constructor(organizationId: string, walletId: string) {
    super(`Wallet ${walletId} of organization ${organizationId} does not exist.`);
    this.name = 'WalletNotFound';
  }
}

export class WalletNotProvisionable extends Error {
  constructor(walletId: string, status: WalletStatus) {
    super(`Wallet ${walletId} is ${status}; only a provisioning wallet can be activated.`);
    this.name = 'WalletNotProvisionable';
  }
}
