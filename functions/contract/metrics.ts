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
  /** An operation stopped for a person; dimensions `operation` and `status`. */
  operationParked: 'OperationParked',
  /** An event given up after its retries (a rule queue's dead-letter queue, or the local bus's list). */
  eventDeadLettered: 'EventDeadLettered',
  /** The sweeper started an operation that was left in a starting state with no running execution. */
  sweeperRestarted: 'SweeperRestarted',
  operationFunded: 'OperationFunded',
  operationCompleted: 'OperationCompleted',
} as const;

/** The `operation` dimension: every kind of money-moving operation. */
export const parkableOperations = ['payment', 'onramp', 'withdrawal', 'offramp', 'chainDeposit'] as const;
/** The `status` dimension of OperationParked: the two stops that need a person. */
export const parkedStatuses = ['IN_DOUBT', 'NEEDS_ATTENTION'] as const;
