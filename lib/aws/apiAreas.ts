import type { Feature } from '#contract/features.ts';
import type { RouteDefinition } from '#contract/routes.ts';

/**
 * The areas of the route table (its sections in functions/contract/routes.ts), one nested stack of
 * `payments-<stage>-api` each (lib/aws/apiStack.ts, docs/decisions/098): a CloudFormation stack holds
 * at most 500 resources and every endpoint function brings about seven (function, role, policy, log
 * group, integration, permission, route), so one stack of them all stops growing near 70 functions.
 *
 * Keyed by feature, so a new feature cannot typecheck without an area, and a new row of an existing
 * feature lands in its area with nothing to change here. An area nearing the budget
 * (test/unit/cdk.test.ts) is split by giving some of its features a new area.
 */
export const apiAreas = ['discovery', 'payments', 'wallets', 'treasury', 'team', 'notifications', 'sandbox'] as const;
export type ApiArea = (typeof apiAreas)[number];

export const apiAreaOfFeature: Record<Feature, ApiArea> = {
  discovery: 'discovery',
  quotes: 'payments',
  payments: 'payments',
  batches: 'payments',
  statements: 'payments',
  balance: 'wallets',
  wallets: 'wallets',
  issuers: 'wallets',
  'wallet-transfers': 'wallets',
  'issuer-mint': 'wallets',
  'wire-transfers': 'wallets',
  'deposit-instructions': 'treasury',
  onramp: 'treasury',
  'onramp-pix': 'treasury',
  'crypto-deposit': 'treasury',
  withdrawals: 'treasury',
  offramp: 'treasury',
  recipients: 'team',
  team: 'team',
  'api-keys': 'team',
  webhooks: 'notifications',
  notifications: 'notifications',
  sandbox: 'sandbox',
};

/**
 * The area of one handler module's function: its first row's. A function and every route it serves
 * sit in one nested stack (an integration is bound to the function of its own stack), so a module
 * behind rows of several features (the shared notImplemented one) goes with the first of them.
 */
export function apiAreaOf(rows: readonly RouteDefinition[]): ApiArea {
  const [first] = rows;
  if (!first) throw new Error('A handler module without route rows has no API area');
  return apiAreaOfFeature[first.feature];
}

/**
 * What any one stack or nested stack of the service may hold: CloudFormation refuses more than 500
 * resources per stack; this leaves room for a release's growth and is checked on every stage by
 * test/unit/cdk.test.ts, before CloudFormation finds out.
 */
export const stackResourceBudget = 400;
