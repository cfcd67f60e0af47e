/**
 * Every feature of the contract with its status on this build. `GET /capabilities` publishes
 * this list, and every route names its feature, so an unbuilt endpoint answers 501 with the
 * reason given here. A feature moves from `planned` when its issue lands.
 */
export type FeatureStatus = 'live' | 'partial' | 'simulated' | 'planned';

export interface FeatureDefinition {
  status: FeatureStatus;
  reason: string;
  requires?: string[];
  /** Works only against this build's simulators: elsewhere it needs a provider adapter not wired yet. */
  simulatorOnly?: boolean;
}

export const features = {
  discovery: { status: 'live', reason: 'Health, capabilities, caller identity and the OpenAPI document.' },
  quotes: { status: 'simulated', reason: 'Quotes price every corridor of GET /capabilities from a simulated FX source whose rates move every minute.', simulatorOnly: true },
  payments: { status: 'simulated', reason: 'Payments run the full workflow and ledger against simulated payout rails; outcome bands force every path (docs/decisions/040).', requires: ['quotes'], simulatorOnly: true },
  batches: { status: 'planned', reason: 'Batch payouts are not built yet; they reuse the payment workflow.', requires: ['payments'] },
  balance: { status: 'live', reason: "Read from the service's own double-entry ledger (available, settling, total in exact USDC minor units); the same read on every environment." },
  wallets: { status: 'planned', reason: 'Wallet reads are not built yet.' },
  issuers: { status: 'planned', reason: 'Issuer reads are not built yet.' },
  'wallet-transfers': { status: 'planned', reason: 'Not offered: moving USDC between wallets is done by withdrawals.' },
  'issuer-mint': { status: 'planned', reason: 'Not offered: minting at an issuer is not exposed through the API.' },
  'wire-transfers': { status: 'planned', reason: 'Not offered: pay fiat out with an off-ramp (POST /treasury/offramp).' },
  'deposit-instructions': { status: 'planned', reason: 'No house bank account is configured yet.' },
  onramp: { status: 'planned', reason: 'Wire on-ramps are not built yet.' },
  'onramp-pix': { status: 'planned', reason: 'PIX on-ramps are not built yet.' },
  'crypto-deposit': { status: 'planned', reason: 'Crypto deposit addresses are not built yet.' },
  withdrawals: { status: 'planned', reason: 'Withdrawals are not built yet.' },
  offramp: { status: 'planned', reason: 'Off-ramps and their beneficiaries are not built yet.' },
  recipients: { status: 'live', reason: "Saved bank and wallet recipients, kept in the service's own table: the same on every environment, no provider involved." },
  team: { status: 'live', reason: "Members, invitations e-mailed with a single-use link (an .eml outbox in simulated, Amazon SES elsewhere), role changes and removal, bounded by the caller's own role." },
  'api-keys': { status: 'live', reason: 'Member and organization keys rotate at once: the old key is refused on the very next request; the ops CLI issues a new organization key when one is lost.' },
  webhooks: { status: 'planned', reason: 'Webhook registration and delivery are not built yet.' },
  notifications: { status: 'planned', reason: 'E-mail notifications are not built yet.' },
  statements: { status: 'planned', reason: 'Statements are not configured: they read realized fees from the ledger.' },
  sandbox: { status: 'planned', reason: 'Sandbox tools are not built yet.' },
} as const satisfies Record<string, FeatureDefinition>;

export type Feature = keyof typeof features;

/**
 * The features as GET /capabilities publishes them on an environment: outside `simulated`, a
 * feature that only has simulators is `planned` (its endpoints answer 501 from the provider port).
 */
export function featuresOn(environment: string): { feature: Feature; status: FeatureStatus; reason: string; requires?: string[] }[] {
  return Object.entries(features).map(([feature, definition]: [string, FeatureDefinition]) => {
    const { simulatorOnly, ...published } = definition;
    if (simulatorOnly && environment !== 'simulated') {
      return { ...published, feature: feature as Feature, status: 'planned' as const, reason: `No provider adapter is wired on ${environment} yet; only simulators exist.` };
    }
    return { ...published, feature: feature as Feature };
  });
}
