import { randomBytes } from 'node:crypto';
import { acceptChainDeposit } from '#operations/chainDeposit/intake.ts';
import { chainDepositView } from '#operations/chainDeposit/view.ts';
import { operationExecutionName } from '#operations/kit/start.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { addressFormatOf, base58Encode } from '#domain/networks.ts';

/**
 * `admin chain-deposit simulate`: in `simulated` no custodian reports USDC arriving on chain, so
 * this stands in for its notification and calls the very function a custody adapter would
 * (functions/operations/chainDeposit/intake.ts). It invents only the transaction hash, in the network's own
 * format, unless one is given (giving the same one twice shows the deposit is credited once).
 */
export async function simulateChainDeposit(input: { organizationId: string; network: string; amount: bigint; txHash?: string }) {
  const home = await homeWalletOf(input.organizationId);
  if (!home.externalId) throw new Error(`the home wallet of ${input.organizationId} is not open yet`);
  const txHash = input.txHash ?? simulatedTxHash(input.network);
  const { deposit, repeated } = await acceptChainDeposit({ walletExternalId: home.externalId, network: input.network, txHash, amount: input.amount });
  return {
    deposit: chainDepositView(deposit),
    repeated,
    /** Set when the deposit moves home through the chainDeposit workflow. */
    executionName: deposit.status === 'CREDITED' ? null : operationExecutionName('chainDeposit', deposit.organizationId, deposit.id),
  };
}

function simulatedTxHash(network: string): string {
  switch (addressFormatOf(network)) {
    case 'solana':
      return base58Encode(randomBytes(64));
    case 'tron':
      return randomBytes(32).toString('hex');
    default:
      return `0x${randomBytes(32).toString('hex')}`;
  }
}
