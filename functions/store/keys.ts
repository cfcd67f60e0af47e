/**
 * The one place that knows how items are keyed in the single table (docs/data-model.md).
 * Every item carries `entity` (its type) so streams, exports and humans can tell them apart.
 */
export const keys = {
  organization: (organizationId: string) => ({ pk: `ORG#${organizationId}`, sk: 'ORG' }),
  wallet: (organizationId: string, walletId: string) => ({ pk: `ORG#${organizationId}`, sk: `WALLET#${walletId}` }),
  /** One per live API key, found by the organization and key id every key carries (decision 077). */
  apiKey: (organizationId: string, keyId: string) => ({ pk: `ORG#${organizationId}`, sk: `APIKEY#${keyId}` }),
  member: (organizationId: string, memberId: string) => ({ pk: `ORG#${organizationId}`, sk: `MEMBER#${memberId}` }),
  /** One per address on the team (lowercased): its Put guarded by attribute_not_exists makes the address unique. */
  memberEmail: (organizationId: string, email: string) => ({ pk: `ORG#${organizationId}`, sk: `MEMBER_EMAIL#${email.toLowerCase()}` }),
  /**
   * A member's choice of one event type for e-mail (functions/store/notifications.ts): the mailer queries
   * `NOTIFY#` for the members who chose events (and which) instead of reading the whole team.
   */
  notificationSubscription: (organizationId: string, eventType: string, memberId: string) => ({ pk: `ORG#${organizationId}`, sk: `NOTIFY#${eventType}#${memberId}` }),
  /** An e-mail verification link's token, found by its SHA-256 (the token itself is never stored). */
  emailVerification: (tokenHash: string) => ({ pk: `EMAILVERIFY#${tokenHash}`, sk: 'EMAILVERIFY' }),
  /** The once-per-member-and-event marker of a notification e-mail (`sending`, then `sent`). */
  notificationMail: (eventId: string, memberId: string) => ({ pk: `NOTIFYMAIL#${eventId}`, sk: `MEMBER#${memberId}` }),
  /**
   * The invitation e-mails sent to one address (lowercased) of the organization in the last day: the
   * re-send limit (docs/decisions/109). Kept per address, not per member, so it outlives a rescinded invitation.
   */
  invitationMails: (organizationId: string, email: string) => ({ pk: `ORG#${organizationId}`, sk: `INVITEMAIL#${email.toLowerCase()}` }),
  /** An invitation token, found by the SHA-256 of the token (the token itself is never stored). */
  invitation: (tokenHash: string) => ({ pk: `INVITE#${tokenHash}`, sk: 'INVITE' }),
  balance: (organizationId: string, currency: string) => ({ pk: `ORG#${organizationId}`, sk: `BALANCE#${currency}` }),
  journalEntry: (organizationId: string, entryId: string) => ({ pk: `ORG#${organizationId}`, sk: `JOURNAL#${entryId}` }),
  quote: (organizationId: string, quoteId: string) => ({ pk: `ORG#${organizationId}`, sk: `QUOTE#${quoteId}` }),
  transaction: (organizationId: string, transactionId: string) => ({ pk: `ORG#${organizationId}`, sk: `TX#${transactionId}` }),
  /** A payment's statement line (decision 096): beside it, sorted by when it was initiated, so a period is one key range. */
  feeLine: (organizationId: string, createdAt: string, transactionId: string) => ({ pk: `ORG#${organizationId}`, sk: `FEELINE#${createdAt}#${transactionId}` }),
  /** A batch payout (functions/store/batches.ts): the batch as accepted, with its one funding transfer. */
  batch: (organizationId: string, batchId: string) => ({ pk: `ORG#${organizationId}`, sk: `BATCH#${batchId}` }),
  /** Who is accepting a batchId right now (functions/store/batches.ts, claimBatchIntake): a lease, never the batch. */
  batchIntake: (organizationId: string, batchId: string) => ({ pk: `ORG#${organizationId}`, sk: `BATCHINTAKE#${batchId}` }),
  /**
   * One item of a batch as accepted, in body order. `generation` is the start of the accepted
   * request's hash: drafts a request wrote before dying without its commit are never read as items.
   */
  batchItem: (organizationId: string, batchId: string, generation: string, index: number) => ({
    pk: `ORG#${organizationId}`,
    sk: `BATCHITEM#${batchId}#${generation}#${String(index).padStart(4, '0')}`,
  }),
  /** One of a batch's counter shards: its items per state, moved in the transaction that moves an item. */
  batchCount: (organizationId: string, batchId: string, shard: number) => ({ pk: `ORG#${organizationId}`, sk: `BATCHCOUNT#${batchId}#${String(shard).padStart(2, '0')}` }),
  /** An item that ended before it became a payment (its id already named another payment). */
  batchItemFailure: (organizationId: string, batchId: string, index: number) => ({ pk: `ORG#${organizationId}`, sk: `BATCHITEMFAIL#${batchId}#${String(index).padStart(4, '0')}` }),
  /** A screening hold. A payment's keeps its plain key; the other operations' ids are their own namespaces (an id has no '#'). */
  complianceRecord: (organizationId: string, transactionId: string, operation: 'payment' | 'beneficiary' | 'offramp' | 'withdrawal' = 'payment') => ({
    pk: `ORG#${organizationId}`,
    sk: operation === 'payment' ? `COMPLIANCE#${transactionId}` : `COMPLIANCE#${operation}#${transactionId}`,
  }),
  /** The organization's one webhook endpoint (functions/store/webhooks.ts): apart from the organization item, which every request reads, so its sealed secrets are read only where they are used. */
  webhookEndpoint: (organizationId: string) => ({ pk: `ORG#${organizationId}`, sk: 'WEBHOOK_ENDPOINT' }),
  /** An event the organization can receive, as delivered, with its attempts; kept 30 days. */
  webhookEvent: (organizationId: string, eventId: string) => ({ pk: `ORG#${organizationId}`, sk: `WEBHOOK_EVENT#${eventId}` }),
  recipient: (organizationId: string, recipientId: string) => ({ pk: `ORG#${organizationId}`, sk: `RECIPIENT#${recipientId}` }),
  /** How many items a capped list of the organization holds (functions/store/listCounts.ts, decision 108). */
  listCount: (organizationId: string, list: string) => ({ pk: `ORG#${organizationId}`, sk: `LISTCOUNT#${list}` }),
  /** A treasury operation (functions/store/operations.ts): on-ramp, withdrawal, off-ramp, on-chain deposit. */
  operation: (organizationId: string, kind: string, id: string) => ({ pk: `ORG#${organizationId}`, sk: `OP#${kind}#${id}` }),
  /** Makes an operation id global: who holds it (the contract's idempotency_key_conflict). */
  operationClaim: (kind: string, id: string) => ({ pk: `OPID#${kind}#${id}`, sk: 'OPID' }),
  /** A registered off-ramp payee (functions/store/offRampBeneficiaries.ts): immutable once written. */
  offRampBeneficiary: (organizationId: string, beneficiaryId: string) => ({ pk: `ORG#${organizationId}`, sk: `OFFRAMP_BENEFICIARY#${beneficiaryId}` }),
  /** An off-ramp quote (functions/store/offRampQuotes.ts): apart from payment quotes, whose shape it does not share. */
  offRampQuote: (organizationId: string, quoteId: string) => ({ pk: `ORG#${organizationId}`, sk: `OFFRAMP_QUOTE#${quoteId}` }),
  /** The off-ramp simulator's own book (functions/simulators/offRamp.ts), one item per deposit reference. */
  simulatedOffRamp: (reference: string, record: 'deposit' | 'attempts' = 'deposit') => ({
    pk: `SIMOFFRAMP#${reference}`,
    sk: record === 'deposit' ? 'SIMOFFRAMP' : 'ATTEMPTS',
  }),
  outboxEvent: (eventId: string) => ({ pk: `EVENT#${eventId}`, sk: 'OUTBOX' }),
  /** A stream record the local stream poller gave up on (lib/local/streamPoller.ts): the local on-failure destination. */
  undeliveredStreamRecord: (shardId: string, sequenceNumber: string) => ({ pk: 'UNDELIVERED', sk: `${shardId}#${sequenceNumber}` }),
  /** An address SES reported as permanently bouncing or complaining (functions/events/mailFeedback.ts), lowercased. */
  mailSuppression: (email: string) => ({ pk: `MAIL#${email.toLowerCase()}`, sk: 'SUPPRESSION' }),
  auditRecord: (organizationId: string, eventId: string) => ({ pk: `ORG#${organizationId}`, sk: `AUDIT#${eventId}` }),
  /** A local workflow execution: names are unique per state machine, as in Step Functions. */
  execution: (executionName: string, workflow: string) => ({ pk: `EXECUTION#${executionName}`, sk: `WORKFLOW#${workflow}` }),
  setting: (name: string) => ({ pk: 'SETTING', sk: name }),
  /** A data migration that has run to its end on this table (functions/store/migrations.ts). */
  migration: (name: string) => ({ pk: 'MIGRATION', sk: name }),
  /** The simulated custodian's faucet book: what POST /wallets/{id}/topup-eurc gave a wallet, per asset. */
  simulatedCustodyPosition: (walletId: string, asset: string) => ({ pk: `SIMCUSTODY#${walletId}`, sk: `ASSET#${asset}` }),
  /** The payout simulator's own book (functions/simulators/payout.ts): the payout, and its submit-attempt counter. */
  simulatedPayout: (reference: string, record: 'payout' | 'attempts' = 'payout') => ({
    pk: `SIMPAYOUT#${reference}`,
    sk: record === 'payout' ? 'SIMPAYOUT' : 'ATTEMPTS',
  }),
  /** The on-ramp simulator's own book (functions/simulators/onRamp.ts): the collection (PIX code or wire registration), and the delivery. */
  simulatedOnRamp: (reference: string, record: 'collection' | 'delivery') => ({
    pk: `SIMONRAMP#${reference}`,
    sk: record === 'collection' ? 'COLLECTION' : 'DELIVERY',
  }),
  /** One line of a house bank account's statement (functions/store/statementLines.ts): global, since a parked line names no organization. */
  statementLine: (statementLineId: string) => ({ pk: `STMTLINE#${statementLineId}`, sk: 'STMTLINE' }),
  /** An api on-ramp waiting for its wire, oldest first per currency: what an incoming wire is attributed to. */
  openOnRamp: (organizationId: string, currency: string, createdAt: string, onRampId: string) => ({
    pk: `ORG#${organizationId}`,
    sk: `ONRAMP_OPEN#${currency}#${createdAt}#${onRampId}`,
  }),
  /** The chain-send simulator's own book (functions/simulators/chain.ts): the transfer, and its send-attempt counter. */
  simulatedChainTransfer: (reference: string, record: 'transfer' | 'attempts' = 'transfer') => ({
    pk: `SIMCHAIN#${reference}`,
    sk: record === 'transfer' ? 'SIMCHAIN' : 'ATTEMPTS',
  }),
} as const;

export type ItemKey = { pk: string; sk: string };

/**
 * The index sort key of a row in a newest-first list (gsi1sk, gsi2sk): its creation time, then
 * its id. A page ends on one, and a cursor carries only it (functions/store/cursors.ts).
 */
export const listSortKey = (createdAt: string, id: string) => `${createdAt}#${id}`;
/**
 * gsi2 partition of operations committed but whose workflow has not yet moved them (a payment
 * FUNDED, a withdrawal INITIATED), sort key `<createdAt>#<kind>#<organizationId>#<id>`: set with the
 * intake, removed by the first transition out of that status, so it holds only what may be stuck
 * and the sweeper (functions/scheduled/startSweeper.ts) reads it without a scan.
 */
export const startingIndex = {
  pk: 'OPERATION_STARTING',
  sk: (createdAt: string, kind: string, organizationId: string, id: string) => `${createdAt}#${kind}#${organizationId}#${id}`,
} as const;
