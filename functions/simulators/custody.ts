import { createHmac } from 'node:crypto';
import { NumberValue, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { scaleOf } from '#domain/money.ts';
import { addressFormatOf, solanaAddress, tronAddress } from '#domain/networks.ts';
import { dynamoExact, queryAll, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { ledgerCurrency, readBalance } from '#store/ledger.ts';
import type { CustodyBalance, CustodyProvider, CustodyWallet, OpenedWallet, OpenWalletRequest } from '#providers/custody.ts';

/**
 * The custody simulator: a custodian that pretends. Its wallets hold what the service's ledger
 * says (it reads the ledger, the one simulator that does) plus what its sandbox faucet gave.
 */
export const simulatedCustodyName = 'simulated-custody';

/**
 * Derives everything from the wallet id with an HMAC, so a repeated call (a task delivered
 * twice, an execution re-driven after a restart) answers the very same wallet, as a real
 * custodian does for a repeated idempotency key. The key is not a secret: these addresses
 * hold nothing.
 */
export class SimulatedCustody implements CustodyProvider {
  readonly name = simulatedCustodyName;

  async openWallet(request: OpenWalletRequest): Promise<OpenedWallet> {
    if (!request.walletId) throw new Error('walletId is required');
    return {
      externalId: `sim-wal-${this.derive('external', request.walletId).slice(0, 24)}`,
      address: `0x${this.derive('address', request.walletId).slice(0, 40)}`,
      chain: 'base',
    };
  }

  /**
   * One position per asset the wallet was opened for. The simulated custodian holds each
   * organization's USDC in its home wallet, and the ledger is the book of that USDC: the position
   * is `available + held` (held is committed to payments in flight but has not left the wallet
   * yet; `settling` is still on another network, not here). No other flow puts anything in a
   * simulated wallet, so every other position is zero: what it holds, never an invented figure.
   */
  async balances(wallet: CustodyWallet): Promise<CustodyBalance[]> {
    const held = wallet.home && wallet.currencies.includes(ledgerCurrency) ? await readBalance(wallet.organizationId, ledgerCurrency) : undefined;
    const toppedUp = await simulatedPositions(wallet.walletId);
    const assets = [...new Set([...wallet.currencies, ...toppedUp.keys()])];
    return assets.map((asset) => {
      const scale = scaleOf(asset);
      if (scale === undefined) throw new Error(`wallet ${wallet.walletId} lists ${asset}, which has no known scale`);
      const amount = asset === ledgerCurrency && held ? held.available + held.held : (toppedUp.get(asset) ?? 0n);
      return { asset, amount, scale, chain: wallet.chain };
    });
  }

  /** The faucet: an ADD on the simulator's own book for the wallet (never the ledger, which keeps USDC only). */
  async sandboxTopUp(wallet: CustodyWallet, asset: string, amount: bigint): Promise<CustodyBalance> {
    const scale = scaleOf(asset);
    if (scale === undefined || asset === ledgerCurrency) throw new Error(`the simulated faucet does not give ${asset}`);
    if (amount <= 0n) throw new Error('a top-up must be positive');
    const { Attributes } = await dynamoExact().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.simulatedCustodyPosition(wallet.walletId, asset),
        UpdateExpression: 'SET entity = :entity, walletId = :walletId, asset = :asset ADD amount :amount',
        ExpressionAttributeValues: { ':entity': 'simulatedCustodyPosition', ':walletId': wallet.walletId, ':asset': asset, ':amount': amount },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return { asset, amount: (Attributes!.amount as NumberValue).toBigInt(), scale, chain: wallet.chain };
  }

  /**
   * Derived like the wallet itself: on an EVM network the wallet's own address (one key pair, the
   * same address on every EVM chain); on Solana a 32-byte public key, on Tron a 20-byte account,
   * each from the wallet id and the network, in the network's own base58 format.
   */
  async depositAddress(wallet: CustodyWallet, network: string): Promise<string> {
    if (!wallet.walletId) throw new Error('walletId is required');
    const derived = (length: number) => Buffer.from(this.derive(`deposit:${network}`, wallet.walletId), 'hex').subarray(0, length);
    switch (addressFormatOf(network)) {
      case 'evm':
        return `0x${this.derive('address', wallet.walletId).slice(0, 40)}`;
      case 'solana':
        return solanaAddress(derived(32));
      case 'tron':
        return tronAddress(derived(20));
      default:
        throw new Error(`the simulated custodian does not hold USDC on ${network}`);
    }
  }

  private derive(purpose: string, walletId: string): string {
    return createHmac('sha256', 'simulated-custody/v1').update(`${purpose}:${walletId}`).digest('hex');
  }
}

/** What the simulated faucet has given a wallet, per asset (one Query on the simulator's book). */
async function simulatedPositions(walletId: string): Promise<Map<string, bigint>> {
  const { pk } = keys.simulatedCustodyPosition(walletId, '');
  const items = await queryAll({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }, dynamoExact());
  return new Map(items.map((item) => [String(item.asset), (item.amount as NumberValue).toBigInt()]));
}

