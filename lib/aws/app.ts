import { Tags, Validations, type App, type Stack } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { AlarmsStack } from './alarmsStack.ts';
import { CachedCfnGuardValidator } from './cachedCfnGuard.ts';
import { ApiStack } from './apiStack.ts';
import { DataStack } from './dataStack.ts';
import { environmentFromContext, houseAccountsFromContext, senderIdentityFromContext, stageSettings, targetFromContext, type StageSettings } from './environment.ts';
import { EdgeStack, edgeRegion } from './edgeStack.ts';
import { EventsStack } from './eventsStack.ts';
import { WorkflowStack } from './workflowStack.ts';

const crossStackReferences = '@aws-cdk/core:defaultCrossStackReferences';

export interface PaymentsStacks {
  settings: StageSettings;
  data: DataStack;
  workflows: WorkflowStack;
  api: ApiStack;
  events: EventsStack;
  alarms: AlarmsStack;
  /** The WAF web ACL in us-east-1, on the stages with an edge (sandbox, production). */
  edge?: EdgeStack;
}

/**
 * The whole service on one stage (`-c environment=...`), one stack per concern: data (stateful)
 * apart from workflows, API and events (stateless, redeployable at will). bin/app.ts and the
 * CDK tests both build the app through this, from bundles made beforehand by
 * lib/build/lambdaBundles.ts.
 */
export interface BuildOptions {
  /**
   * Run cdk-nag and cfn-guard at synth (default). The local grant check (lib/local/grants) reads
   * the same stacks without them: it needs the policies, and `cdk synth` validates what deploys.
   */
  validate?: boolean;
}

export function buildPaymentsApp(app: App, bundles: LambdaBundle[], options: BuildOptions = {}): PaymentsStacks {
  const environment = environmentFromContext(app);
  const houseAccounts = houseAccountsFromContext(app);
  const senderIdentity = senderIdentityFromContext(app, environment);
  const settings = { ...stageSettings(environment), ...(houseAccounts ? { houseAccounts } : {}), ...(senderIdentity ? { senderIdentity } : {}) };
  // Strong references: while the functions use the table and the cursor key, CloudFormation
  // refuses to change or drop the data stack's exports, so stateful resources cannot be swapped
  // out from under running code. Said explicitly (CDK warns when it is only the default).
  if (app.node.tryGetContext(crossStackReferences) === undefined) app.node.setContext(crossStackReferences, 'strong');
  const byEntry = new Map(bundles.map((bundle) => [bundle.entry, bundle]));
  const bundleOf = (entry: string): LambdaBundle => {
    const bundle = byEntry.get(entry);
    if (!bundle) throw new Error(`No bundle was built for ${entry}; bundle lambdaEntries() before building the app`);
    return bundle;
  };
  const env = targetFromContext(app);

  const data = new DataStack(app, `${settings.prefix}-data`, { env, settings, description: `Payments ${settings.environment}: table and cursor key` });
  const context = { settings, table: data.table, cursorSecret: data.cursorSecret, webhookSecretKey: data.webhookSecretKey };
  const workflows = new WorkflowStack(app, `${settings.prefix}-workflows`, { env, context, bundleOf, description: `Payments ${settings.environment}: state machines and task functions` });
  // WAF for CloudFront lives in us-east-1 only: its web ACL is a stack of its own there, and the API
  // stack (the stage's region) reads its ARN through CDK's cross-region references (docs/decisions/104).
  const edge = settings.edge ? new EdgeStack(app, `${settings.prefix}-edge`, {
    env: { ...env, region: edgeRegion },
    settings: { ...settings, edge: settings.edge },
    crossRegionReferences: true,
    description: `Payments ${settings.environment}: AWS WAF web ACL of the API's CloudFront distribution`,
  }) : undefined;
  if (edge && !env.region) {
    throw new Error(`${settings.environment} puts the API behind CloudFront and a WAF web ACL in ${edgeRegion}, which needs the stage's region named: -c region=<region> (docs/deployment.md)`);
  }
  const api = new ApiStack(app, `${settings.prefix}-api`, {
    env, context, bundleOf, ...(edge ? { edge, crossRegionReferences: true } : {}),
    description: `Payments ${settings.environment}: HTTP API and endpoint functions${edge ? ', behind CloudFront' : ''}`,
  });
  const events = new EventsStack(app, `${settings.prefix}-events`, { env, context, bundleOf, publicBaseUrl: api.publicBaseUrl, description: `Payments ${settings.environment}: outbox forwarder, bus, rules and targets` });
  const alarms = new AlarmsStack(app, `${settings.prefix}-alarms`, { env, settings, description: `Payments ${settings.environment}: alarms on parked operations, dead letters and failed workflows` });
  // The API names the state machines instead of referencing them (no export to pin), so the
  // order is stated: on a first deploy the machines exist before any function can start one.
  api.addStackDependency(workflows, 'API functions start the state machines by name');

  for (const stack of [data, workflows, api, events, alarms, ...(edge ? [edge] : [])]) acknowledgeStackWide(stack, settings);

  Tags.of(app).add('service', 'payments');
  Tags.of(app).add('environment', settings.environment);

  // Policy-validation plugins: synth fails on any unacknowledged finding of cdk-nag's AwsSolutions
  // pack or of AWS Control Tower's proactive controls (cfn-guard, run on the synthesized templates;
  // a template it found clean before is not read again, docs/decisions/139).
  if (options.validate ?? true) Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new CachedCfnGuardValidator());
  return { settings, data, workflows, api, events, alarms, ...(edge ? { edge } : {}) };
}

/**
 * Control Tower proactive controls (cfn-guard) that the service answers by design, stack-wide, each
 * with its reason. Everything else it reports is fixed where it arises (table encryption, Lambda
 * permissions naming their source account) or acknowledged on the one construct it concerns.
 */
function acknowledgeStackWide(stack: Stack, settings: StageSettings): void {
  Validations.of(stack).acknowledge({
    id: 'cdk-validator-cfnguard::lambda_inside_vpc_check',
    reason: 'The functions reach only AWS service endpoints (DynamoDB, Step Functions, EventBridge, SES, Secrets Manager) and '
      + 'hold no network-reachable state: a VPC would add NAT or endpoint costs and cold-start latency and protect nothing.',
  }, {
    id: 'cdk-validator-cfnguard::cloudwatch_log_group_encrypted_check',
    reason: 'CloudWatch Logs encrypts every log group at rest with a service key; what is logged carries no payload '
      + '(state machines log without execution data, functions never log addresses, keys or account numbers), so a '
      + 'customer-managed KMS key would add a key per stack to operate for no data it protects.',
  });
  if (settings.environment !== 'production') {
    Validations.of(stack).acknowledge({
      id: 'cdk-validator-cfnguard::cloudwatch_log_group_retention_period_check',
      reason: `Production keeps its logs one year (audit evidence); ${settings.environment} logs hold no customer money and are kept a month.`,
    });
  }
}
