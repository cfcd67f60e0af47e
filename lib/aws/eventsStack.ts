import { Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { EventBus, Rule, type EventPattern as CdkEventPattern, type IEventBus } from 'aws-cdk-lib/aws-events';
import { SqsQueue } from 'aws-cdk-lib/aws-events-targets';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { FilterCriteria, FilterRule, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { eventRules, mailFeedbackRule, type EventPattern } from '#contract/events.ts';
import { tableExtrasOf } from '#contract/routes.ts';
import { outboxStreamFilter } from '#store/outbox.ts';
import { queueBatchSize, queueMaxReceiveCount } from '#platform/queueConsumer.ts';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { workflows, type WorkflowName } from '#contract/workflows.ts';
import { grantMailSending, mailConfigurationSetName, stateMachineArn, type StageSettings } from './environment.ts';
import { entryName, outboxForwarderHandler } from './handlers.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';

export interface EventsStackProps extends StackProps {
  context: FunctionContext & { table: ITable };
  bundleOf: (entry: string) => LambdaBundle;
  /** Base of the links the notification mailer puts in e-mails (the API's address, or `-c publicBaseUrl`). */
  publicBaseUrl: string;
}

/**
 * How long a queue consumer may run; the queue hides a message six times that (AWS's advice for
 * Lambda consumers). The webhook starter's worst batch is its ten events' first attempts side by
 * side (docs/decisions/132): one receiver's timeout (attemptTimeoutMs, 10 s) after the address
 * lookup, with the store, KMS and Step Functions calls around it; the delivery task has the same
 * 30 s for the same attempt (test/unit/cdk.test.ts holds the one to the other).
 */
const consumerTimeout = Duration.seconds(30);

/**
 * Outbox → bus → queues → targets. The table stream feeds the outbox forwarder, which puts each
 * new outbox item on the service bus; one rule per entry of functions/contract/events.ts routes events
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
      table: 'none',
      environment: { EVENT_BUS_NAME: this.bus.eventBusName },
    });
    this.bus.grantPutEventsTo(forwarder.function);

    // Records the forwarder still cannot deliver after its retries: kept for a replay by hand.
    const undelivered = secureQueue(this, 'OutboxUndelivered', outboxUndeliveredQueueName(settings));
    acknowledgeLastStop(undelivered, "This queue is the stream consumer's on-failure destination, itself the last stop: a dead-letter queue of it would only move the same records again.");

    forwarder.function.addEventSource(new DynamoEventSource(table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: 100,
      // No batching window (docs/decisions/132): with one, Lambda holds what a poll found until the
      // window ends, so at light traffic every event waited up to that long before the bus. Without
      // it, each poll's records (four polls a second per shard) are handed over at once, as the
      // local poller does; busy shards still fill batches of up to 100.
      // The forwarder answers batchItemFailures: only the records after the first refused one are retried.
      reportBatchItemFailures: true,
      bisectBatchOnError: true,
      retryAttempts: 10,
      maxRecordAge: Duration.days(1),
      onFailure: new SqsDlq(undelivered),
      // Every write on the table rides the stream; only new outbox items are events. Filtering here
      // means the forwarder is not even invoked for balance updates, rate buckets and the rest.
      filters: [FilterCriteria.filter({
        eventName: FilterRule.isEqual(outboxStreamFilter.eventName),
        dynamodb: { NewImage: { entity: { S: FilterRule.isEqual(outboxStreamFilter.entity) } } },
      })],
    }));
    Validations.of(forwarder.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'dynamodb:ListStreams (stream discovery by the event source mapping) and X-Ray writes have no resource-level permissions.',
    });

    const targets = new Map<string, ServiceFunction>();
    /** A rule → its queue (with a dead-letter queue) → the target Lambda, which may be shared by several rules. */
    const route = (rule: { name: string; description: string; target: string; starts?: readonly WorkflowName[]; sendsMail?: true; deletes?: true; batchWrites?: true; opensSecrets?: true }, eventBus: IEventBus, eventPattern: CdkEventPattern) => {
      const deadLetters = secureQueue(this, `${rule.name}DeadLetters`, ruleDeadLetterQueueName(settings, rule.name));
      acknowledgeLastStop(deadLetters, 'A dead-letter queue is the last stop of its rule queue; what lands here is alarmed on and redriven by hand.');
      const queue = secureQueue(this, `${rule.name}Queue`, `${settings.prefix}-${rule.name}`, {
        visibilityTimeout: Duration.seconds(consumerTimeout.toSeconds() * 6),
        deadLetterQueue: { queue: deadLetters, maxReceiveCount: queueMaxReceiveCount },
      });
      new Rule(this, `${rule.name}Rule`, {
        ruleName: `${settings.prefix}-${rule.name}`,
        description: rule.description,
        eventBus,
        eventPattern,
        targets: [new SqsQueue(queue)],
      });

      let target = targets.get(rule.target);
      if (!target) {
        target = new ServiceFunction(this, entryName(rule.target), {
          context: props.context,
          bundle: props.bundleOf(rule.target),
          timeout: consumerTimeout,
          table: 'write',
          tableExtras: tableExtrasOf(rule),
        });
        targets.set(rule.target, target);
        if (rule.starts?.length) {
          const arns = rule.starts.map((workflow) => stateMachineArn(this, settings, workflows[workflow].name));
          target.function.addToRolePolicy(new PolicyStatement({ actions: ['states:StartExecution'], resources: arns }));
        }
        if (rule.sendsMail) grantMailSending(target.function, settings, props.publicBaseUrl);
        if (rule.opensSecrets) props.context.webhookSecretKey.grantDecrypt(target.function);
      }
      // Targets answer batchItemFailures: one bad message is redelivered (and finally dead-lettered) alone.
      target.function.addEventSource(new SqsEventSource(queue, { batchSize: queueBatchSize, reportBatchItemFailures: true }));
    };
    for (const eventRule of eventRules) route(eventRule, this.bus, cdkEventPattern(eventRule.pattern));
    // SES publishes bounces and complaints only to the default bus; only this stage's configuration set is taken.
    if (settings.senderIdentity) {
      route(mailFeedbackRule, EventBus.fromEventBusName(this, 'DefaultBus', 'default'), {
        source: ['aws.ses'],
        detailType: [...mailFeedbackRule.detailTypes],
        detail: { mail: { tags: { 'ses:configuration-set': [mailConfigurationSetName(settings)] } } },
      });
    }
  }
}

/** The stream consumer's on-failure destination: what `admin events replay-failed` re-drives. */
export function outboxUndeliveredQueueName(settings: StageSettings): string {
  return `${settings.prefix}-outbox-undelivered`;
}

export function ruleDeadLetterQueueName(settings: StageSettings, rule: string): string {
  return `${settings.prefix}-${rule}-dlq`;
}

/** Every queue where a message lands when it is given up: each rule's dead-letter queue and the stream's on-failure queue. */
export function deadLetterQueueNames(settings: StageSettings): string[] {
  const rules = [...eventRules, ...(settings.senderIdentity ? [mailFeedbackRule] : [])];
  return [...rules.map((rule) => ruleDeadLetterQueueName(settings, rule.name)), outboxUndeliveredQueueName(settings)];
}

function acknowledgeLastStop(queue: Queue, reason: string): void {
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason }, { id: 'cdk-validator-cfnguard::sqs_dlq_check', reason });
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
