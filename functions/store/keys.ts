/**
 * The one place that knows how items are keyed in the single table (docs/data-model.md).
 * Every item carries `entity` (its type) so streams, exports and humans can tell them apart.
 */
export const keys = {
  organization: (organizationId: string) => ({ pk: `ORG#${organizationId}`, sk: 'ORG' }),
  wallet: (organizationId: string, walletId: string) => ({ pk: `ORG#${organizationId}`, sk: `WALLET#${walletId}` }),
  member: (organizationId: string, memberId: string) => ({ pk: `ORG#${organizationId}`, sk: `MEMBER#${memberId}` }),
  /** One per address on the team (lowercased): its Put guarded by attribute_not_exists makes the address unique. */
  memberEmail: (organizationId: string, email: string) => ({ pk: `ORG#${organizationId}`, sk: `MEMBER_EMAIL#${email.toLowerCase()}` }),
  /** An invitation token, found by the SHA-256 of the token (the token itself is never stored). */
  invitation: (tokenHash: string) => ({ pk: `INVITE#${tokenHash}`, sk: 'INVITE' }),
  balance: (organizationId: string, currency: string) => ({ pk: `ORG#${organizationId}`, sk: `BALANCE#${currency}` }),
  journalEntry: (organizationId: string, entryId: string) => ({ pk: `ORG#${organizationId}`, sk: `JOURNAL#${entryId}` }),
  quote: (organizationId: string, quoteId: string) => ({ pk: `ORG#${organizationId}`, sk: `QUOTE#${quoteId}` }),
  transaction: (organizationId: string, transactionId: string) => ({ pk: `ORG#${organizationId}`, sk: `TX#${transactionId}` }),
  complianceRecord: (organizationId: string, transactionId: string) => ({ pk: `ORG#${organizationId}`, sk: `COMPLIANCE#${transactionId}` }),
  recipient: (organizationId: string, recipientId: string) => ({ pk: `ORG#${organizationId}`, sk: `RECIPIENT#${recipientId}` }),
  /** A treasury operation (functions/store/operations.ts): on-ramp, withdrawal, off-ramp, on-chain deposit. */
  operation: (organizationId: string, kind: string, id: string) => ({ pk: `ORG#${organizationId}`, sk: `OP#${kind}#${id}` }),
  /** Makes an operation id global: who holds it (the contract's idempotency_key_conflict). */
  operationClaim: (kind: string, id: string) => ({ pk: `OPID#${kind}#${id}`, sk: 'OPID' }),
  outboxEvent: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'OUTBOX' }),
  auditRecord: (organizationId: string, eventId: string) => ({ pk: `ORG#${organizationId}`, sk: `AUDIT#${eventId}` }),
  execution: (executionName: string) => ({ pk: `EXECUTION#${executionName}`, sk: 'EXECUTION' }),
  setting: (name: string) => ({ pk: 'SETTING', sk: name }),
  /** The payout simulator's own book (functions/providers/payout.ts): the payout, and its submit-attempt counter. */
  simulatedPayout: (reference: string, record: 'payout' | 'attempts' = 'payout') => ({
    pk: `SIMPAYOUT#${reference}`,
    sk: record === 'payout' ? 'SIMPAYOUT' : 'ATTEMPTS',
  }),
} as const;

export type ItemKey = { pk: string; sk: string };
