import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { metricDimensions, metricNames, metricsNamespace, metricsService } from '#contract/metrics.ts';

/**
 * What a payments operator watches, as CloudWatch metrics (Powertools, embedded metric format:
 * one JSON line on stdout per data point, which Lambda ships to CloudWatch and which locally is
 * just a log line). Built once per process, at its first data point rather than at import (a cold
 * start need not pay for it; docs/decisions/129). The namespace and names are the ones the alarms are
 * built on (functions/contract/metrics.ts, the one list both read):
 *   OperationFunded, OperationCompleted   dimension `operation` (payment, withdrawal, offramp, onramp, chainDeposit)
 *   OperationParked                       dimensions `operation`, `status` (IN_DOUBT | NEEDS_ATTENTION)
 *   EventDeadLettered                     dimension `rule` (the local bus only: in AWS the dead-letter queues' depth)
 *   SweeperRestarted                      dimension `operation`
 * Powertools adds `service` = payments to each. Off when POWERTOOLS_METRICS_DISABLED is true (the tests).
 */
let metrics: Metrics | undefined;
/**
 * The one single-metric instance: each `singleMetric()` is a new Metrics (its environment read
 * again, a Console of its own), about 50 µs a count. It publishes at addMetric and then clears its
 * dimensions, so the next count starts bare.
 */
let single: Metrics | undefined;

export type MetricName = (typeof metricNames)[keyof typeof metricNames];

/**
 * One count, published at once with its own dimensions (a single-metric EMF line): exactly the
 * dimensions functions/contract/metrics.ts declares for it, which are the ones its alarms name.
 */
export function count<N extends MetricName>(name: N, dimensions: Record<(typeof metricDimensions)[N][number], string>): void {
  metrics ??= new Metrics({ namespace: metricsNamespace, serviceName: metricsService });
  single ??= metrics.singleMetric();
  // A count that threw before its addMetric leaves no dimension behind for the next one.
  single.clearDimensions();
  for (const [key, value] of Object.entries<string>(dimensions)) single.addDimension(key, value);
  single.addMetric(name, MetricUnit.Count, 1);
}

/** The status each kind of operation is funded in (its money held) and the one that ends it well. */
const fundedStatus: Record<string, string> = { payment: 'FUNDED', withdrawal: 'HELD', offramp: 'PULLED', onramp: 'PAYMENT_RECEIVED' };
const completedStatus: Record<string, string> = { payment: 'RECONCILED', withdrawal: 'SENT', offramp: 'PAID', onramp: 'DELIVERED', chainDeposit: 'CREDITED' };

/**
 * Called by the transition code (functions/store/transactions.ts, operations.ts) once a status
 * change is written, never by handlers: every way an operation moves is counted once.
 */
export function operationMoved(operation: string, status: string): void {
  if (fundedStatus[operation] === status) count('OperationFunded', { operation });
  if (completedStatus[operation] === status) count('OperationCompleted', { operation });
  if (status === 'IN_DOUBT' || status === 'NEEDS_ATTENTION') count('OperationParked', { operation, status });
}
