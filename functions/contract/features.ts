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
  /** Fakes money: never offered on `production`, whatever adapters exist there. */
  sandboxOnly?: boolean;
}

export const features = {
  discovery: { status: 'live', reason: 'Health, capabilities, caller identity and the OpenAPI document.' },
  quotes: { status: 'simulated', reason: 'Quotes price every corridor of GET /capabilities from a simulated FX source whose rates move every minute.', simulatorOnly: true },
  payments: { status: 'simulated', reason: 'Payments run the full workflow and ledger against simulated payout rails; outcome bands force every path (docs/decisions/040).', requires: ['quotes'], simulatorOnly: true },
  batches: { status: 'simulated', reason: 'Up to 1,000 payments on one rail, funded from the balance in one transfer and each paid as its own payment `<batchId>:<itemRef>` through the payment workflow against the simulated payout rails; outcome bands force any item\'s end (docs/decisions/090).', requires: ['payments'], simulatorOnly: true },
  balance: { status: 'live', reason: "Read from the service's own double-entry ledger (available, settling, total in exact USDC minor units); the same read on every environment." },
  wallets: { status: 'simulated', reason: "Wallet accounts opened by a simulated custody provider (the home wallet, kept `provisioning` until it is opened), and its balance report: the home wallet's USDC as the ledger holds it, available plus held (docs/decisions/052).", simulatorOnly: true },
  issuers: { status: 'simulated', reason: "A simulated issuer's catalogue (USDC and EURC). An organization holds no account at an issuer (bank and PIX deposits are paid to the service's own legal entity, and minting is not offered), so its account list is empty as a true answer, not a placeholder (docs/decisions/052).", simulatorOnly: true },
  'wallet-transfers': { status: 'planned', reason: 'Not offered, on any environment, and not coming: POST /wallets/{walletId}/transfers always answers 501. Move USDC out of the home wallet with a withdrawal (POST /treasury/withdrawals).' },
  'issuer-mint': { status: 'planned', reason: 'Not offered, on any environment, and not coming: POST /issuers/{issuerId}/mint always answers 501. USDC comes in through deposits (bank wire, PIX or on chain), which the service mints through its own issuer account.' },
  'wire-transfers': { status: 'planned', reason: 'Not offered, on any environment, and not coming: POST /banking/wire-transfers always answers 501. Pay fiat out to a registered bank account with an off-ramp (POST /treasury/offramp).' },
  'deposit-instructions': { status: 'live', reason: "The organization's one reference (with a check character; the same on every environment) and the house bank account of each configured currency (HOUSE_ACCOUNTS). `simulated` shows simulated accounts where no money moves; an environment with none configured answers 501 (docs/decisions/053)." },
  onramp: { status: 'simulated', reason: "Wire deposits (USD at par, EUR at the FX rate at conversion) against a simulated collection bank and issuer: POST /treasury/onramp announces a wire; a wire quoting the organization's reference is attributed to it, or starts a `dep-` deposit by itself, or parks for manual reconciliation; USDC is credited only once delivered to the home wallet; outcome bands force refunds, failures and in-doubt deliveries (docs/decisions/054).", simulatorOnly: true },
  'onramp-pix': { status: 'simulated', reason: 'PIX deposits (BRL) against a simulated PIX provider: a dynamic BR Code with the price fixed when it is opened, paid by the sandbox payer (simulate-payment), credited only once the USDC delivery confirms on chain (docs/decisions/055).', simulatorOnly: true },
  'crypto-deposit': { status: 'simulated', reason: 'USDC deposit addresses on the home network and on every network a crossing home is priced for (the EVM ones share the home address; Solana and Tron have their own, from a simulated custody provider), with the move fee quotes charge (docs/decisions/053). USDC arriving is credited by one function a custody notification calls: as is on the home network, through `settling` and a simulated move home (less that fee) on another; with no custodian to notify in `simulated`, the ops command `admin chain-deposit simulate` stands in for it (docs/decisions/056).', simulatorOnly: true },
  withdrawals: { status: 'simulated', reason: 'USDC to an own EVM address on the home network or an EVM network a crossing is priced for: priced from a simulated gas oracle (gas with headroom, plus the crossing fee), held in the ledger, sent once by a simulated custodian whose outcome bands force every state (docs/decisions/060). Nothing reaches a real chain.', requires: ['crypto-deposit'], simulatorOnly: true },
  offramp: { status: 'simulated', reason: 'Beneficiaries, quotes and off-ramps (USDC to EUR by SEPA, GBP by Faster Payments, USD by Fedwire) run the full workflow and ledger against a simulated off-ramp provider; outcome bands force every end (docs/decisions/061).', simulatorOnly: true },
  recipients: { status: 'live', reason: "Saved bank and wallet recipients, kept in the service's own table: the same on every environment, no provider involved." },
  team: { status: 'live', reason: "Members, invitations e-mailed with a single-use link (an .eml outbox in simulated, Amazon SES elsewhere), role changes and removal, bounded by the caller's own role." },
  'api-keys': { status: 'live', reason: 'Member and organization keys rotate at once: the old key is refused on the very next request; the ops CLI issues a new organization key when one is lost.' },
  webhooks: { status: 'live', reason: "One endpoint per organization, signed as Standard Webhooks (rotation keeps the old secret signing for 24 hours), retried on the Standard Webhooks schedule by a workflow per delivery, disabled by 410 Gone or five days of failures; GET /events lists what was sent with every attempt for 30 days, and an event can be redelivered. Outside `simulated` only https URLs resolving to public addresses (docs/decisions/091, 092, 093)." },
  notifications: { status: 'live', reason: "Per-member e-mail of the seven events, to an address verified by a single-use link, with one-click unsubscribe (RFC 8058); bounces and complaints suppress the address until it is verified again. Sent as an .eml outbox in simulated, through Amazon SES elsewhere; `verificationAvailable` is false on a stack with no mail transport (docs/decisions/094)." },
  statements: { status: 'live', reason: "Realized fees and initiated volume of the organization's payments (batch items included) in a half-open period, as JSON or CSV (Accept: text/csv), recomputed at each read from the line each payment keeps (its fee realized with the capture at RECONCILED): the same read on every environment, needing nothing but the service's own table (docs/decisions/096)." },
  sandbox: {
    status: 'simulated',
    reason: 'Tools that fake only the payer or a balance (simulate-wire, simulate-payment, topup-eurc) and ready-to-send inputs with the outcome bands (sandbox-prefill). Never on production (docs/decisions/062).',
    simulatorOnly: true,
    sandboxOnly: true,
  },
} as const satisfies Record<string, FeatureDefinition>;

export type Feature = keyof typeof features;

/**
 * The features as GET /capabilities publishes them on an environment: outside `simulated`, a
 * feature that only has simulators is `planned` (its endpoints answer 501 from the provider port).
 */
export function featuresOn(
  environment: string,
  /** Features whose configuration is missing here, with why: published as `planned` (they answer 501). */
  unconfigured: Partial<Record<Feature, string>> = {},
): { feature: Feature; status: FeatureStatus; reason: string; requires?: string[] }[] {
  return Object.entries(features).map(([feature, definition]: [string, FeatureDefinition]) => {
    const { simulatorOnly, sandboxOnly, ...published } = definition;
    const missing = unconfigured[feature as Feature];
    if (missing) return { ...published, feature: feature as Feature, status: 'planned' as const, reason: missing };
    if (sandboxOnly && environment === 'production') {
      return { ...published, feature: feature as Feature, status: 'planned' as const, reason: 'Sandbox tools fake money and are never offered on production.' };
    }
    if (simulatorOnly && environment !== 'simulated') {
      return { ...published, feature: feature as Feature, status: 'planned' as const, reason: `No provider adapter is wired on ${environment} yet; only simulators exist.` };
    }
    return { ...published, feature: feature as Feature };
  });
}
