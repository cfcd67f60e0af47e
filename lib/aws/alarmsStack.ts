import { ArnFormat, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { metricNames, metricsNamespace, metricsService, parkableOperations, parkedStatuses, sweptOperations } from '#contract/metrics.ts';
import { workflows } from '#contract/workflows.ts';
import { stateMachineArn, type StageSettings } from './environment.ts';
import { deadLetterQueueNames } from './eventsStack.ts';

export interface AlarmsStackProps extends StackProps {
  settings: StageSettings;
}

/**
 * What must wake someone, as CloudWatch alarms on one SNS topic (`payments-<env>-alarms`; subscribe
 * the on-call address or pager to it, docs/deployment.md): an operation parked IN_DOUBT or
 * NEEDS_ATTENTION, the sweeper restarting a stuck operation, a message
 * waiting in any dead-letter queue, and any workflow execution failed or timed out; and one alarm
 * that nothing but a person sets, to test that notifications arrive. Everything is
 * named, not referenced (queues and state machines have fixed names), so this stack depends on no
 * other and can be deployed or changed alone.
 */
export class AlarmsStack extends Stack {
  readonly topic: Topic;
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: AlarmsStackProps) {
    super(scope, id, props);
    const { settings } = props;
    this.topic = new Topic(this, 'Alarms', { topicName: `${settings.prefix}-alarms`, displayName: `Payments ${settings.environment} alarms`, enforceSSL: true });
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason: 'CloudWatch alarms cannot publish to a topic encrypted with the AWS-managed SNS key, and the notifications carry '
        + 'only alarm names and thresholds (no customer data): a customer-managed key would protect nothing.',
    });
    // A topic policy replaces SNS's default one (which lets the account's own principals publish), and
    // enforceSSL made one holding only its Deny: without this statement CloudWatch may not publish, and
    // every alarm would change state with no one told. Only this account's alarms may publish.
    this.topic.addToResourcePolicy(new PolicyStatement({
      sid: 'CloudWatchAlarmsOfThisAccount',
      principals: [new ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [this.topic.topicArn],
      conditions: {
        ArnLike: { 'aws:SourceArn': this.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
        StringEquals: { 'aws:SourceAccount': this.account },
      },
    }));
    const action = new SnsAction(this.topic);
    const alarm = (id: string, description: string, metric: Metric) => {
      const created = new Alarm(this, id, {
        alarmName: `${settings.prefix}-${id}`,
        alarmDescription: description,
        metric,
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        // No data is no trouble: these metrics are only emitted when something happens.
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
      this.alarms.push(created);
    };
    const period = Duration.minutes(5);
    const service = (name: string, dimensionsMap: Record<string, string> = {}) =>
      new Metric({ namespace: metricsNamespace, metricName: name, dimensionsMap: { service: metricsService, ...dimensionsMap }, statistic: 'Sum', period });

    for (const operation of parkableOperations) {
      for (const status of parkedStatuses) {
        alarm(`parked-${operation}-${status}`, `A ${operation} was parked ${status}: reconcile it and settle it with admin resolve (docs/decisions/063).`,
          service(metricNames.operationParked, { operation, status }));
      }
    }
    // One alarm per kind: CloudWatch matches the whole dimension set the sweeper emits ({service, operation}).
    for (const operation of sweptOperations) {
      alarm(`sweeper-restarted-${operation}`, `The sweeper restarted a ${operation} left with no running execution: find out why it stopped.`,
        service(metricNames.sweeperRestarted, { operation }));
    }
    // A given-up event is alarmed on below as its dead-letter queue's depth: in AWS no code of ours
    // runs when a queue dead-letters a message, so EventDeadLettered (the local bus's count) is never emitted there.

    // Set to ALARM by hand (`admin smoke --stage`, docs/deployment.md) to prove a notification reaches
    // whoever is subscribed: its metric is never emitted, so it returns to OK at its next evaluation.
    alarm('notification-test', 'A test notification sent by admin smoke after a deploy: nothing to do.',
      new Metric({ namespace: `${metricsNamespace}/Smoke`, metricName: 'NotificationTest', statistic: 'Sum', period: Duration.minutes(1) }));

    for (const queueName of deadLetterQueueNames(settings)) {
      alarm(`dlq-${queueName.slice(settings.prefix.length + 1)}`, `Messages wait in ${queueName}: redrive them once the cause is fixed (docs/deployment.md).`,
        new Metric({ namespace: 'AWS/SQS', metricName: 'ApproximateNumberOfMessagesVisible', dimensionsMap: { QueueName: queueName }, statistic: 'Maximum', period }));
    }
    for (const workflow of Object.values(workflows)) {
      const dimensionsMap = { StateMachineArn: stateMachineArn(this, settings, workflow.name) };
      for (const [suffix, metricName] of [['failed', 'ExecutionsFailed'], ['timed-out', 'ExecutionsTimedOut']] as const) {
        alarm(`workflow-${workflow.name}-${suffix}`, `A ${workflow.name} execution ${suffix.replace('-', ' ')}: read its history (npm run admin -- ops history).`,
          new Metric({ namespace: 'AWS/States', metricName, dimensionsMap, statistic: 'Sum', period }));
      }
    }
  }
}
