import { providerPort } from '#platform/providerPorts.ts';
import type { Issuer, WalletAccount } from '#schemas/wallets.ts';

/**
 * The stablecoin issuer port: which issuers the service works with (the catalogue of GET /issuers)
 * and which accounts an organization holds at them (GET /issuers/accounts, kind `issuer_account`).
 * `simulated` uses its simulator (functions/simulators/issuers.ts); sandbox and production need a real adapter, and until one
 * is wired both calls throw ProviderNotConfigured, which the API answers 501: never an empty list
 * standing in for a feature that is not there (docs/decisions/052-wallets-and-issuers.md).
 */
export interface IssuerProvider {
  readonly name: string;
  catalogue(): Promise<Issuer[]>;
  /** The organization's own accounts at the issuers, as the contract's "wallet or issuer account". */
  accounts(organizationId: string): Promise<WalletAccount[]>;
}

const issuerProviderPort = providerPort<IssuerProvider>('issuer');

/** The simulated stage's wiring registers the simulator here (functions/simulators/install.ts). */
export const simulateIssuerProvider = issuerProviderPort.simulateWith;

/** Wiring (or a test) installs another provider here; `undefined` goes back to the environment's default. */
export const useIssuerProvider = issuerProviderPort.use;

export const issuerProvider = issuerProviderPort.get;
