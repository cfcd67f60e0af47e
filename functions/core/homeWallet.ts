import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ApiError } from '#platform/errors.ts';
import { dynamo, tableName } from '#store/client.ts';
import { walletEntity, type WalletRecord } from '#store/wallets.ts';

/**
 * The home wallet every payment is funded from. Read from the wallet items themselves (one
 * Query of the organization's wallets) rather than trusted from a pointer, so that a data fault
 * leaving none or two flagged home is refused (`no_home_wallet`, `ambiguous_home_wallet`)
 * instead of funding from a guess.
 */
export async function homeWalletOf(organizationId: string, integratorWalletId?: string): Promise<WalletRecord> {
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :wallet)',
      FilterExpression: 'entity = :entity AND home = :home',
      ExpressionAttributeValues: { ':pk': `ORG#${organizationId}`, ':wallet': 'WALLET#', ':entity': walletEntity, ':home': true },
      ConsistentRead: true,
    }),
  );
  const homes = (Items ?? []) as WalletRecord[];
  if (homes.length === 0) throw new ApiError('no_home_wallet', 'This organization has no home wallet to fund from.');
  if (homes.length > 1) {
    throw new ApiError('ambiguous_home_wallet', 'More than one wallet is marked home; nothing was moved. Contact support.');
  }
  const home = homes[0]!;
  if (integratorWalletId !== undefined && integratorWalletId !== home.id && integratorWalletId !== home.externalId) {
    throw new ApiError('not_home_wallet', 'integratorWalletId must be the home wallet (or be omitted): funding is always from it.');
  }
  return home;
}
