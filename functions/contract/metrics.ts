/**
 * The operational metrics of the service: what a payments operator watches. Functions emit them
 * with Powertools Metrics (CloudWatch embedded metric format) in this namespace, with Powertools'
 * default `service` dimension; the AWS wiring alarms on them (lib/aws/alarmsStack.ts). One list,
 * so an emitted name and an alarmed name cannot drift apart.
 */
export const metricsNamespace = 'Payments';
/** Powertools' `service` dimension on every metric (POWERTOOLS_SERVICE_NAME of every function). */
export const metricsService = 'payments';

export const metricNames = {
  /** An operation stopped for a person. */
  operationParked: 'OperationParked',
  /** An event given up after its retries by the local bus (in AWS, the dead-letter queues' depth). */
  eventDeadLettered: 'EventDeadLettered',
  /** The sweeper started an operation that was left in a starting state with no running execution. */
  sweeperRestarted: 'SweeperRestarted',
  operationFunded: 'OperationFunded',
  operationCompleted: 'OperationCompleted',
} as const;

/**
 * The dimensions each metric is emitted with, beside Powertools' `service` (functions/platform/metrics.ts
 * count() takes exactly these). CloudWatch matches a metric by its whole dimension set, so an alarm
 * must name the same set: one with fewer dimensions watches a metric nobody emits and never fires.
 */
export const metricDimensions = {
  OperationParked: ['operation', 'status'],
  EventDeadLettered: ['rule'],
  SweeperRestarted: ['operation'],
  OperationFunded: ['operation'],
  OperationCompleted: ['operation'],
} as const satisfies Record<(typeof metricNames)[keyof typeof metricNames], readonly string[]>;

/**
 * Metrics only the local stack emits: its in-process bus counts a dead letter; in AWS a rule's queue
 * moves the message to its dead-letter queue without any code of ours running, and the queue's depth
 * (AWS/SQS ApproximateNumberOfMessagesVisible) is what is alarmed on.
 */
export const localOnlyMetrics: readonly (keyof typeof metricDimensions)[] = ['EventDeadLettered'];

/** The kinds of operation the sweeper restarts (functions/scheduled/startSweeper.ts): one alarm each. */
export const sweptOperations = ['payment', 'withdrawal', 'batch'] as const;

/** The `operation` dimension: every kind of money-moving operation. */
export const parkableOperations = ['payment', 'onramp', 'withdrawal', 'offramp', 'chainDeposit'] as const;
/** The `status` dimension of OperationParked: the two stops that need a person. */
export const parkedStatuses = ['IN_DOUBT', 'NEEDS_ATTENTION'] as const;
