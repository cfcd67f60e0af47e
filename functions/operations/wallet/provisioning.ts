import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { custodyProvider, type OpenedWallet } from '#providers/custody.ts';
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
 * The walletProvisioning workflow's two steps (statemachines/walletProvisioning.asl.json; the Task
 * entry points in functions/tasks/walletProvisioning/ only parse their input).
 */

/**
 * CreateWallet: opens the wallet at the custody provider. Writes nothing: ActivateWallet records the
 * result together with its event. Idempotent: once the wallet is active it answers the stored details
 * without calling the provider again; before that the provider itself is idempotent on the wallet id.
 */
export async function openWallet(organizationId: string, walletId: string): Promise<OpenedWallet> {
  const wallet = await getWallet(organizationId, walletId);
  if (!wallet) throw new WalletNotFound(organizationId, walletId);
  if (wallet.status === 'active' && wallet.externalId && wallet.address && wallet.chain) {
    return { externalId: wallet.externalId, address: wallet.address, chain: wallet.chain };
  }
  if (wallet.status !== 'provisioning') throw new WalletNotProvisionable(walletId, wallet.status);
  return custodyProvider().openWallet({ organizationId, walletId, label: wallet.label });
}

/**
 * ActivateWallet: provisioning → active plus the `wallet.activated` outbox event, in one transaction.
 * Idempotent: an already active wallet is answered as is, and a second delivery racing the first
 * loses the status condition and writes nothing.
 */
export async function activateWallet(organizationId: string, walletId: string, custody: OpenedWallet): Promise<WalletAccount> {
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
