/**
 * The one place that knows how items are keyed in the single table (docs/data-model.md).
 * Every item carries `entity` (its type) so streams, exports and humans can tell them apart.
 */
export const keys = {
  organization: (organizationId: string) => ({ pk: `ORG#${organizationId}`, sk: 'ORG' }),
  wallet: (organizationId: string, walletId: string) => ({ pk: `ORG#${organizationId}`, sk: `WALLET#${walletId}` }),
  member: (organizationId: string, memberId: string) => ({ pk: `ORG#${organizationId}`, sk: `MEMBER#${memberId}` }),
  balance: (organizationId: string, currency: string) => ({ pk: `ORG#${organizationId}`, sk: `BALANCE#${currency}` }),
  outboxEvent: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'OUTBOX' }),
  auditRecord: (organizationId: string, eventId: string) => ({ pk: `ORG#${organizationId}`, sk: `AUDIT#${eventId}` }),
  execution: (executionName: string) => ({ pk: `EXECUTION#${executionName}`, sk: 'EXECUTION' }),
  setting: (name: string) => ({ pk: 'SETTING', sk: name }),
} as const;

export type ItemKey = { pk: string; sk: string };
