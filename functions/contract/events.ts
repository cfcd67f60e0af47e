/**
 * Event rules: read by the CDK events stack (EventBridge rules on the service bus, each
 * delivering to an SQS queue with a dead-letter queue, drained by the target Lambda) and by
 * the local bus (same patterns, same target handlers, called in process).
 *
 * Events start as outbox items written in the same DynamoDB transaction as the state change
 * (functions/store/outbox.ts); DynamoDB Streams carry them to the bus through the outbox
 * forwarder (functions/events/outboxForwarder.ts: the stream's Lambda in AWS, fed by
 * lib/local/streamPoller.ts here; docs/decisions/021). Delivery is at least once: targets dedupe on the event id.
 */
import type { WorkflowName } from './workflows.ts';

export const eventSource = 'payments.service';

/** An EventBridge pattern: the subset the local bus implements (exact values, prefix, anything-but, exists). */
export type EventPattern = Record<string, unknown>;

export interface EventRule {
  name: string;
  description: string;
  pattern: EventPattern;
  /** Module (relative to the project root) exporting `handler(sqsEvent)`. */
  target: string;
  /** Workflows the target starts (granted states:StartExecution on those state machines only, in AWS). */
  starts?: WorkflowName[];
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
    starts: ['payment'],
  },
  {
    name: 'onRampStarter',
    description: 'A deposit (wire or PIX on-ramp, or a wire that started one) whose request died before starting its workflow is started from its event.',
    pattern: { source: [eventSource], 'detail-type': ['onramp.started'] },
    target: 'functions/events/onRampStarter.ts',
    starts: ['onRamp'],
  },
  {
    name: 'offRampStarter',
    description: 'An accepted off-ramp whose request died before starting its workflow is started from its event.',
    pattern: { source: [eventSource], 'detail-type': ['offramp.accepted'] },
    target: 'functions/events/offRampStarter.ts',
    starts: ['offRamp'],
  },
  {
    name: 'chainOperationStarter',
    description: 'A withdrawal, or an on-chain deposit to move home, whose request died before starting its workflow is started from its event.',
    pattern: { source: [eventSource], 'detail-type': ['withdrawal.initiated', 'chain_deposit.settling'] },
    target: 'functions/events/chainOperationStarter.ts',
    starts: ['withdrawal', 'chainDeposit'],
  },
];

/**
 * Amazon SES's bounce and complaint events for the stage's configuration set, on the account's
 * default event bus (SES publishes nowhere else): not a service event, so not a row of eventRules
 * and not on the local bus (there is no SES here). The AWS wiring routes them through a queue with
 * a dead-letter queue, as the rules above.
 */
export const mailFeedbackRule = {
  name: 'mailFeedback',
  description: 'SES bounces and complaints of the stage\'s mail are recorded as suppressions of the address.',
  detailTypes: ['Email Bounced', 'Email Complaint Received'],
  target: 'functions/events/mailFeedback.ts',
} as const;
