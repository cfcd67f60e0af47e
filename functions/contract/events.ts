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
import { eventTypes } from '#schemas/webhooks.ts';
import { workflows, type OperationWorkflowName, type WorkflowName } from './workflows.ts';

/** The workflows of money-moving operations, each started by its `startedBy` events (functions/events/operationStarter.ts). */
const operationWorkflows = (Object.keys(workflows) as WorkflowName[]).filter((name): name is OperationWorkflowName => 'operation' in workflows[name]);

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
  /** The target e-mails through the mail port: in AWS it may send as the stage's SES identity. */
  sendsMail?: true;
  /** The target deletes items (releases a claim): DeleteItem is granted only to the targets that say so. */
  deletes?: true;
  /** The target writes many items in one BatchWriteItem (the audit trail's records of a queue batch). */
  batchWrites?: true;
  /** Opens sealed signing secrets (members' unsubscribe keys, to sign links; webhook secrets, to sign a first attempt): granted kms:Decrypt on the secrets key (decisions 110, 132). */
  opensSecrets?: true;
}

export const eventRules: EventRule[] = [
  {
    name: 'auditTrail',
    description: 'Every service event is kept in the audit trail, for support and reconciliation.',
    pattern: { source: [eventSource] },
    target: 'functions/events/auditTrail.ts',
    batchWrites: true,
  },
  {
    name: 'operationStarter',
    description: 'A money-moving operation whose request died before starting its workflow is started from the event stored with it.',
    pattern: { source: [eventSource], 'detail-type': operationWorkflows.flatMap((workflow) => [...workflows[workflow].operation.startedBy]) },
    target: 'functions/events/operationStarter.ts',
    starts: operationWorkflows,
  },
  {
    name: 'notificationMailer',
    description: 'The contract\'s seven events are e-mailed to each verified member who chose them (docs/decisions/094).',
    pattern: { source: [eventSource], 'detail-type': [...eventTypes] },
    target: 'functions/events/notificationMailer.ts',
    sendsMail: true,
    deletes: true,
    opensSecrets: true,
  },
  {
    name: 'webhookDelivery',
    description: "The seven event types an integrator receives are kept for GET /events and delivered to the organization's webhook endpoint; internal events never match.",
    pattern: { source: [eventSource], 'detail-type': [...eventTypes] },
    target: 'functions/events/webhookStarter.ts',
    starts: ['webhookDelivery'],
    // It makes each event's first attempt itself, signed with the endpoint's secrets (docs/decisions/132).
    opensSecrets: true,
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
