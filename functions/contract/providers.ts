/**
 * The provider ports a route may need (functions/contract/routes.ts `needs`): the endpoint checks
 * them before the handler runs, and a port without an adapter on this environment answers 501
 * naming the route's feature (functions/platform/providerPorts.ts).
 */
export const providerNeeds = ['custody', 'payout', 'chain', 'gasOracle', 'fx', 'issuer', 'onRamp', 'offRamp'] as const;
export type ProviderNeed = (typeof providerNeeds)[number];
