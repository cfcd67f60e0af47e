import { useWorkflowEngine } from '#platform/workflow.ts';
import { onboardOrganization } from './onboarding.ts';
import { operationHistory, renderHistory } from './operationHistory.ts';
import type { ServiceEnvironment } from './cliTarget.ts';
import type { SmokeTarget } from './smoke.ts';

/**
 * Where `admin smoke` walks (lib/ops/smoke.ts), from where the CLI points (lib/ops/cliTarget.ts):
 *   - the local stack (no --stage): the service at --url (default http://127.0.0.1:3000, `npm start`),
 *     its store at DYNAMODB_ENDPOINT; the wallet workflow of the new organization runs in this process,
 *     as under `admin org create`, and the history is what the local runner recorded;
 *   - a deployed stage (--stage): the addresses are the API stack's outputs (PublicUrl, ApiUrl), the
 *     organization is written to the stage's table with your credentials, the history is Step
 *     Functions', and the test alarm is set in CloudWatch.
 */
export interface SmokeTargetOptions {
  environment: ServiceEnvironment;
  /** Set for a deployed stage. */
  stage?: string;
  url?: string;
  webhookUrl?: string;
  timeoutMs: number;
}

export async function smokeTarget(options: SmokeTargetOptions): Promise<{ walk: SmokeTarget; close: () => Promise<void> }> {
  const history: SmokeTarget['history'] = async (organizationId, operationId) => {
    const found = await operationHistory(organizationId, operationId);
    return found && { text: renderHistory(found), executionFound: found.executionFound, status: found.operation.status };
  };
  const common = { environment: options.environment, timeoutMs: options.timeoutMs, history, ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}) };

  if (!options.stage) {
    const { LocalWorkflowRunner } = await import('../local/workflowRunner.ts');
    const runner = new LocalWorkflowRunner();
    useWorkflowEngine(runner);
    return {
      walk: {
        ...common,
        publicUrl: options.url ?? `http://127.0.0.1:${process.env.PORT || 3000}`,
        openOrganization: async ({ name, openingDeposit }) => {
          const created = await onboardOrganization({ name, kybStatus: 'approved', ...(openingDeposit === undefined ? {} : { openingDeposit }) });
          await runner.waitFor(created.walletExecution);
          return { organizationId: created.organization.id, apiKey: created.apiKey.apiKey };
        },
      },
      close: () => runner.stop(),
    };
  }

  const prefix = `payments-${options.stage}`;
  const region = process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  const account = process.env.AWS_ACCOUNT_ID ?? /:(\d{12}):/.exec(process.env.WORKFLOW_ARN_PREFIX ?? '')?.[1];
  if (!region || !account) throw new Error(`smoke --stage ${options.stage} needs AWS_REGION and AWS_ACCOUNT_ID`);
  const { CloudFormationClient, DescribeStacksCommand } = await import('@aws-sdk/client-cloudformation');
  const described = await new CloudFormationClient({ region }).send(new DescribeStacksCommand({ StackName: `${prefix}-api` }));
  const outputs = new Map((described.Stacks?.[0]?.Outputs ?? []).map((output) => [output.OutputKey, output.OutputValue]));
  const publicUrl = options.url ?? outputs.get('PublicUrl') ?? outputs.get('ApiUrl');
  if (!publicUrl) throw new Error(`the stack ${prefix}-api has no ApiUrl output: is the stage deployed in ${region}?`);
  const originUrl = outputs.has('PublicUrl') ? outputs.get('ApiUrl') : undefined;

  return {
    walk: {
      ...common,
      publicUrl,
      ...(originUrl ? { originUrl } : {}),
      // Started on Step Functions; the walk waits for the wallet through GET /wallets.
      openOrganization: async ({ name, openingDeposit }) => {
        const created = await onboardOrganization({ name, kybStatus: 'approved', ...(openingDeposit === undefined ? {} : { openingDeposit }) });
        return { organizationId: created.organization.id, apiKey: created.apiKey.apiKey };
      },
      testAlarm: async () => {
        const { CloudWatchClient, SetAlarmStateCommand } = await import('@aws-sdk/client-cloudwatch');
        const { SNSClient, ListSubscriptionsByTopicCommand } = await import('@aws-sdk/client-sns');
        const alarmName = `${prefix}-notification-test`;
        const cloudWatch = new CloudWatchClient({ region });
        // OK first, so the change to ALARM is a transition even if a walk a minute ago left it there.
        await cloudWatch.send(new SetAlarmStateCommand({ AlarmName: alarmName, StateValue: 'OK', StateReason: 'admin smoke: reset before the test notification' }));
        await cloudWatch.send(new SetAlarmStateCommand({ AlarmName: alarmName, StateValue: 'ALARM', StateReason: `admin smoke at ${new Date().toISOString()}: a test notification, nothing to do` }));
        const topicArn = `arn:aws:sns:${region}:${account}:${prefix}-alarms`;
        const sns = new SNSClient({ region });
        let subscribed = 0;
        let nextToken: string | undefined;
        do {
          const page = await sns.send(new ListSubscriptionsByTopicCommand({ TopicArn: topicArn, NextToken: nextToken }));
          subscribed += (page.Subscriptions ?? []).filter((subscription) => subscription.SubscriptionArn?.startsWith('arn:')).length;
          nextToken = page.NextToken;
        } while (nextToken);
        return { detail: `${alarmName} set to ALARM (it returns to OK at its next evaluation)`, subscribed };
      },
    },
    close: async () => {},
  };
}
