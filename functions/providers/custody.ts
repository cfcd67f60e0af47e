import { providerPort } from '#platform/providerPorts.ts';

/**
 * The custody provider port: opens the wallet that holds an organization's USDC and reports
 * what a wallet holds. `simulated` uses its simulator (functions/simulators/custody.ts); sandbox and production need a real
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

const custodyProviderPort = providerPort<CustodyProvider>('custody');

/** The simulated stage's wiring registers the simulator here (functions/simulators/install.ts). */
export const simulateCustodyProvider = custodyProviderPort.simulateWith;

/** Wiring installs a real adapter here when one exists; nothing is installed in `simulated`. */
export const useCustodyProvider = custodyProviderPort.use;

export const custodyProvider = custodyProviderPort.get;
