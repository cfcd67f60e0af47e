/**
 * Event rules: read by the CDK events stack (EventBridge rules on the service bus, each
 * delivering to an SQS queue with a dead-letter queue, drained by the target Lambda) and by
 * the local bus (same patterns, same target handlers, called in process).
 *
 * Events start as outbox items written in the same DynamoDB transaction as the state change
 * (functions/store/outbox.ts); DynamoDB Streams carry them to the bus (EventBridge Pipes in
 * AWS, lib/local/streamPoller.ts here). Delivery is at least once: targets dedupe on the event id.
 */
export const eventSource = 'payments.service';

/** An EventBridge pattern: the subset the local bus implements (exact values, prefix, anything-but, exists). */
export type EventPattern = Record<string, unknown>;

export interface EventRule {
  name: string;
  description: string;
  pattern: EventPattern;
  /** Module (relative to the project root) exporting `handler(sqsEvent)`. */
  target: string;
  /** The target starts workflow executions (granted states:StartExecution in AWS). */
  startsWorkflows?: boolean;
}

export const eventRules: EventRule[] = [
  {
    name: 'auditTrail',
    description: 'Every service event is kept in the audit trail, for support and reconciliation.',
    pattern: { source: [eventSource] },
    target: 'functions/events/auditTrail.ts',
  },
  {
    name: 'paymentStarter',
    description: 'A funded payment whose request died before starting its workflow is started from its event.',
    pattern: { source: [eventSource], 'detail-type': ['transaction.funded'] },
    target: 'functions/events/paymentStarter.ts',
    startsWorkflows: true,
  },
  {
    name: 'onRampStarter',
    description: 'A deposit (wire or PIX on-ramp, or a wire that started one) whose request died before starting its workflow is started from its event.',
    pattern: { source: [eventSource], 'detail-type': ['onramp.started'] },
    target: 'functions/events/onRampStarter.ts',
    startsWorkflows: true,
  },
  {
    name: 'offRampStarter',
    description: 'An accepted off-ramp whose request died before starting its workflow is started from its event.',
    pattern: { source: [eventSource], 'detail-type': ['offramp.accepted'] },
    target: 'functions/events/offRampStarter.ts',
    startsWorkflows: true,
  },
  {
    name: 'chainOperationStarter',
    description: 'A withdrawal, or an on-chain deposit to move home, whose request died before starting its workflow is started from its event.',
    pattern: { source: [eventSource], 'detail-type': ['withdrawal.initiated', 'chain_deposit.settling'] },
    target: 'functions/events/chainOperationStarter.ts',
    startsWorkflows: true,
  },
];
