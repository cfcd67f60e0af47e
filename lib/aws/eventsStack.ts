import { Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { EventBus, Rule, type EventPattern as CdkEventPattern } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { eventRules, type EventPattern } from '#wiring/events.ts';
import { outboxEntity } from '#store/outbox.ts';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { workflows } from '#wiring/workflows.ts';
import { stateMachineArn } from './environment.ts';
import { entryName, outboxForwarderHandler } from './handlers.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';

export interface EventsStackProps extends StackProps {
  context: FunctionContext & { table: ITable };
  bundleOf: (entry: string) => LambdaBundle;
}

/** How long a queue consumer may run; the queue hides a message six times that (AWS's advice for Lambda consumers). */
const consumerTimeout = Duration.seconds(30);

/**
 * Outbox → bus → queues → targets. The table stream feeds the outbox forwarder, which puts each
 * new outbox item on the service bus; one rule per entry of lib/wiring/events.ts routes events
 * to a queue (with a dead-letter queue) drained by that rule's target Lambda.
 */
export class EventsStack extends Stack {
  readonly bus: EventBus;

  constructor(scope: Construct, id: string, props: EventsStackProps) {
    super(scope, id, props);
    const { settings, table } = props.context;

    this.bus = new EventBus(this, 'Bus', { eventBusName: settings.prefix, description: 'Service events from the outbox' });

    const forwarder = new ServiceFunction(this, entryName(outboxForwarderHandler), {
      context: props.context,
      bundle: props.bundleOf(outboxForwarderHandler),
      timeout: consumerTimeout,
      tableAccess: false,
      environment: { EVENT_BUS_NAME: this.bus.eventBusName },
    });
    this.bus.grantPutEventsTo(forwarder.function);

    // Records the forwarder still cannot deliver after its retries: kept for a replay by hand.
    const undelivered = secureQueue(this, 'OutboxUndelivered', `${settings.prefix}-outbox-undelivered`);
    Validations.of(undelivered).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: "This queue is the stream consumer's on-failure destination, itself the last stop: a dead-letter queue of it would only move the same records again.",
    });

    forwarder.function.addEventSource(new DynamoEventSource(table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      maxBatchingWindow: Duration.seconds(1),
      // The forwarder answers batchItemFailures: only the records after the first refused one are retried.
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: 10,
      maxRecordAge: Duration.days(1),
      onFailure: new SqsDlq(undelivered),
      // Every write on the table rides the stream; only new outbox items are events. Filtering here
      // means the forwarder is not even invoked for balance updates, rate buckets and the rest.
      filters: [FilterCriteria.filter({
        eventName: FilterRule.isEqual('INSERT'),
        dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(outboxEntity) } } },
      })],
    }));
    Validations.of(forwarder.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams (stream discovery by the event source mapping) and X-Ray writes have no resource-level permissions.',
    });

    const targets = new Map<string, ServiceFunction>();
    for (const eventRule of eventRules) {
      const deadLetters = secureQueue(this, `${eventRule.name}DeadLetters`, `${settings.prefix}-${eventRule.name}-dlq`);
      const queue = secureQueue(this, `${eventRule.name}Queue`, `${settings.prefix}-${eventRule.name}`, {
        visibilityTimeout: Duration.seconds(consumerTimeout.toSeconds() * 6),
        deadLetterQueue: { queue: deadLetters, maxReceiveCount: 5 },
      });
      new Rule(this, `${eventRule.name}Rule`, {
        ruleName: `${settings.prefix}-${eventRule.name}`,
        description: eventRule.description,
        eventBus: this.bus,
        eventPattern: cdkEventPattern(eventRule.pattern),
        targets: [new SqsQueue(queue)],
      });

      let target = targets.get(eventRule.target);
      if (!target) {
        target = new ServiceFunction(this, entryName(eventRule.target), {
          context: props.context,
          bundle: props.bundleOf(eventRule.target),
          timeout: consumerTimeout,
        });
        targets.set(eventRule.target, target);
        if (eventRule.startsWorkflows) {
          const arns = Object.values(workflows).map((workflow) => stateMachineArn(this, settings, workflow.name));
          target.function.addToRolePolicy(new PolicyStatement({ actions: ['states:StartExecution'], resources: arns }));
        }
      }
      // Targets answer batchItemFailures: one bad message is redelivered (and finally dead-lettered) alone.
      target.function.addEventSource(new SqsEventSource(queue, { batchSize: 10, reportBatchItemFailures: true }));
    }
  }
}

function secureQueue(scope: Construct, id: string, queueName: string, props: { visibilityTimeout?: Duration; deadLetterQueue?: { queue: Queue; maxReceiveCount: number } } = {}) {
  return new Queue(scope, id, {
    queueName,
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    ...props,
  });
}

/** The wiring writes patterns as EventBridge does (`detail-type`); the CDK type spells the keys in camelCase. */
const patternKeys: Record<string, keyof CdkEventPattern> = {
  version: 'version',
  id: 'id',
  'detail-type': 'detailType',
  source: 'source',
  account: 'account',
  time: 'time',
  region: 'region',
  resources: 'resources',
  detail: 'detail',
};

export function cdkEventPattern(pattern: EventPattern): CdkEventPattern {
  return Object.fromEntries(Object.entries(pattern).map(([key, value]) => {
    const cdkKey = patternKeys[key];
    if (!cdkKey) throw new Error(`Event pattern key "${key}" is not an EventBridge event field`);
    return [cdkKey, value];
  })) as CdkEventPattern;
}
