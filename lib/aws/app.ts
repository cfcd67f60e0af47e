import { Tags, Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { ApiStack } from './apiStack.ts';
import { DataStack } from './dataStack.ts';
import { environmentFromContext, houseAccountsFromContext, stageSettings, type StageSettings } from './environment.ts';
import { EventsStack } from './eventsStack.ts';
import { WorkflowStack } from './workflowStack.ts';

const crossStackReferences = '@aws-cdk/core:defaultCrossStackReferences';

export interface PaymentsStacks {
  settings: StageSettings;
  data: DataStack;
  workflows: WorkflowStack;
  api: ApiStack;
  events: EventsStack;
}

/**
 * The whole service on one stage (`-c environment=...`), one stack per concern: data (stateful)
 * apart from workflows, API and events (stateless, redeployable at will). bin/app.ts and the
 * CDK tests both build the app through this, from bundles made beforehand by
 * lib/build/lambdaBundles.ts.
 */
export function buildPaymentsApp(app: App, bundles: LambdaBundle[]): PaymentsStacks {
  const houseAccounts = houseAccountsFromContext(app);
  const settings = { ...stageSettings(environmentFromContext(app)), ...(houseAccounts ? { houseAccounts } : {}) };
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
  // Environment-agnostic unless the CLI knows the target account: synth works offline.
  const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };

  const data = new DataStack(app, `${settings.prefix}-data`, { env, settings, description: `Payments ${settings.environment}: table and cursor key` });
  const context = { settings, table: data.table, cursorSecret: data.cursorSecret };
  const workflows = new WorkflowStack(app, `${settings.prefix}-workflows`, { env, context, bundleOf, description: `Payments ${settings.environment}: state machines and task functions` });
  const api = new ApiStack(app, `${settings.prefix}-api`, { env, context, bundleOf, description: `Payments ${settings.environment}: HTTP API and endpoint functions` });
  const events = new EventsStack(app, `${settings.prefix}-events`, { env, context, bundleOf, description: `Payments ${settings.environment}: outbox forwarder, bus, rules and targets` });
  // The API names the state machines instead of referencing them (no export to pin), so the
  // order is stated: on a first deploy the machines exist before any function can start one.
  api.addStackDependency(workflows, 'API functions start the state machines by name');

  Tags.of(app).add('service', 'payments');
  Tags.of(app).add('environment', settings.environment);

  // cdk-nag 3 is a policy-validation plugin: synth fails on any unacknowledged AwsSolutions error.
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { settings, data, workflows, api, events };
}
