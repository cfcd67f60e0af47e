import { createHmac } from 'node:crypto';
import { providerPort } from '#platform/providerPorts.ts';
import { scaleOf } from '#domain/money.ts';
import { addressFormatOf, solanaAddress, tronAddress } from '#domain/networks.ts';
import { NumberValue, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamoExact, queryAll, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { ledgerCurrency, readBalance } from '#store/ledger.ts';


/**
 * The custody provider port: opens the wallet that holds an organization's USDC and reports
 * what a wallet holds. `simulated` uses the simulator below; sandbox and production need a real
 * adapter, and until one is wired both calls fail loudly (ProviderNotConfigured, which the API
 * answers 501) instead of inventing an address or a balance.
 */
export interface OpenWalletRequest {
  organizationId: string;
  walletId: string;
  label: string | null;
}

export interface OpenedWallet {
  /** The provider's own handle for the wallet. */
  externalId: string;
  /** EVM address, `0x` + 40 hex. */
  address: string;
  chain: string;
}

/** An opened wallet, as the service knows it, asked about at its provider. */
export interface CustodyWallet {
  organizationId: string;
  walletId: string;
  /** The provider's handle (what a real adapter asks with). */
  externalId: string;
  chain: string | null;
  /** The assets the wallet was opened for. */
  currencies: string[];
  /** The organization's home wallet: the one that holds its USDC. */
  home: boolean;
}

/** One asset position as the provider reports it: exact minor units at `scale`. */
export interface CustodyBalance {
  asset: string;
  amount: bigint;
  scale: number;
  chain: string | null;
}

export interface CustodyProvider {
  /** Recorded on the wallet as its `provider`. */
  readonly name: string;
  /**
   * Must be idempotent on `walletId`: a task may be delivered twice, so a second call for the
   * same wallet answers the wallet the first one opened.
   */
  openWallet(request: OpenWalletRequest): Promise<OpenedWallet>;
  /** What the wallet holds, as the provider reports it; a read, with no effect at the provider. */
  balances(wallet: CustodyWallet): Promise<CustodyBalance[]>;
  /**
   * The address that receives USDC sent on `network` into this wallet (GET /treasury/crypto-deposit).
   * Stable: the same wallet and network always answer the same address, as a custodian's
   * per-network deposit address does. A read, with no effect on the wallet.
   */
  depositAddress(wallet: CustodyWallet, network: string): Promise<string>;
  /**
   * Sandbox only (POST /wallets/{walletId}/topup-eurc): credits `amount` of `asset` to the wallet
   * at the provider, as a sandbox faucet does, and answers the position after it. A provider with
   * no faucet leaves it out (the endpoint answers 501).
   */
  sandboxTopUp?(wallet: CustodyWallet, asset: string, amount: bigint): Promise<CustodyBalance>;
}

// The error classes live with the other providers' (one set of names for the workflows' Retry/Catch);
// re-exported so existing imports from this module keep working.
export { ProviderNotConfigured, ProviderUnavailable } from '#platform/providerErrors.ts';

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

const custodyProviderPort = providerPort<CustodyProvider>('custody', () => new SimulatedCustody());

/** Wiring installs a real adapter here when one exists; nothing is installed in `simulated`. */
export const useCustodyProvider = custodyProviderPort.use;

export const custodyProvider = custodyProviderPort.get;
