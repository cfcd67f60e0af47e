import type { Issuer, WalletAccount } from '#schemas/wallets.ts';
import type { IssuerProvider } from '#providers/issuers.ts';

export const simulatedIssuerName = 'simulated-issuer';

/**
 * A simulated stand-in for the issuer the service mints and redeems through: USDC and EURC on the
 * networks the service uses for them. Ids carry `sim-` like the simulated wallets' handles, so
 * nobody takes it for a real relationship.
 */
const simulatedCatalogue: readonly Issuer[] = [
  { id: 'sim-circle', name: 'Circle (simulated)', currencies: ['USDC', 'EURC'], chains: ['base', 'ethereum'] },
];

export class SimulatedIssuers implements IssuerProvider {
  readonly name = simulatedIssuerName;

  async catalogue(): Promise<Issuer[]> {
    return simulatedCatalogue.map((issuer) => ({ ...issuer, currencies: [...issuer.currencies], chains: [...issuer.chains] }));
  }

  /**
   * None, for every organization, and that is the true answer rather than a placeholder: in this
   * service an organization holds no account at an issuer. Bank and PIX deposits are paid to the
   * service's own legal entity, which mints through its own issuer relationship and credits the
   * organization's home wallet; minting at an issuer is not offered through the API (POST
   * /issuers/{issuerId}/mint answers 501); and no flow of the simulator opens one.
   */
  async accounts(organizationId: string): Promise<WalletAccount[]> {
    if (!organizationId) throw new Error('organizationId is required');
    return [];
  }
}

