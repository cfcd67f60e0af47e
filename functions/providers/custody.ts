import { createHmac } from 'node:crypto';
import { config } from '#platform/config.ts';
import { ProviderNotConfigured } from './providerErrors.ts';

/**
 * The custody provider port: opens the wallet that holds an organization's USDC.
 * `simulated` uses the simulator below; sandbox and production need a real adapter, and
 * until one is wired opening a wallet fails loudly instead of inventing an address.
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

export interface CustodyProvider {
  /** Recorded on the wallet as its `provider`. */
  readonly name: string;
  /**
   * Must be idempotent on `walletId`: a task may be delivered twice, so a second call for the
   * same wallet answers the wallet the first one opened.
   */
  openWallet(request: OpenWalletRequest): Promise<OpenedWallet>;
}

// The error classes live with the other providers' (one set of names for the workflows' Retry/Catch);
// re-exported so existing imports from this module keep working.
export { ProviderNotConfigured, ProviderUnavailable } from './providerErrors.ts';

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

  private derive(purpose: string, walletId: string): string {
    return createHmac('sha256', 'simulated-custody/v1').update(`${purpose}:${walletId}`).digest('hex');
  }
}

let installed: CustodyProvider | undefined;

/** Wiring installs a real adapter here when one exists; nothing is installed in `simulated`. */
export function useCustodyProvider(provider: CustodyProvider | undefined): void {
  installed = provider;
}

export function custodyProvider(): CustodyProvider {
  if (installed) return installed;
  const environment = config().SERVICE_ENVIRONMENT;
  if (environment === 'simulated') {
    installed = new SimulatedCustody();
    return installed;
  }
  throw new ProviderNotConfigured(`No custody provider is configured for the ${environment} environment.`);
}
