import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { dynamo } from '#store/client.ts';
import {
  activateWalletTransaction,
  getWallet,
  walletView,
  WalletNotFound,
  WalletNotProvisionable,
  type WalletRecord,
} from '#store/wallets.ts';
import type { WalletAccount } from '#schemas/wallets.ts';

/**
 * walletProvisioning / ActivateWallet: provisioning → active plus the `wallet.activated`
 * outbox event, in one transaction. Idempotent: an already active wallet is answered as is,
 * and a second delivery racing the first loses the status condition and writes nothing.
 */
const inputSchema = z.object({
  organizationId: z.string().min(1),
  walletId: z.string().min(1),
  custody: z.object({
    externalId: z.string().min(1),
    address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
    chain: z.string().min(1),
  }),
});

export async function handler(event: unknown): Promise<WalletAccount> {
  const { organizationId, walletId, custody } = inputSchema.parse(event);
  const current = await getWallet(organizationId, walletId);
  if (!current) throw new WalletNotFound(organizationId, walletId);
  if (current.status === 'active') return activeView(current);
  if (current.status !== 'provisioning') throw new WalletNotProvisionable(walletId, current.status);

  const { transactItems, wallet } = activateWalletTransaction(current, custody);
  try {
    await dynamo().send(new TransactWriteCommand({ TransactItems: transactItems }));
    return wallet;
  } catch (error) {
    // The status condition failed: another delivery got there first. Read what it left.
    const lostCondition =
      error instanceof TransactionCanceledException &&
      error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';
    if (!lostCondition) throw error;
    const after = await getWallet(organizationId, walletId);
    if (!after) throw new WalletNotFound(organizationId, walletId);
    if (after.status === 'active') return activeView(after);
    throw new WalletNotProvisionable(walletId, after.status);
  }
}

function activeView(record: WalletRecord): WalletAccount {
  const view = walletView(record);
  if (view.status !== 'active' || view.externalId === null) throw new WalletNotProvisionable(record.id, record.status);
  return { ...view, status: 'active', externalId: view.externalId };
}
