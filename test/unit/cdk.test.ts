import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPaymentsApp, type PaymentsStacks } from '../../lib/aws/app.ts';
import { apiAreaOf, apiAreas, stackResourceBudget } from '../../lib/aws/apiAreas.ts';
import type { ApiStack } from '../../lib/aws/apiStack.ts';
import { serviceEnvironments, stageSettings } from '../../lib/aws/environment.ts';
import { DataStack } from '../../lib/aws/dataStack.ts';
import { sweeperHandler } from '../../lib/aws/sweeperSchedule.ts';
import { lambdaEntries, outboxForwarderHandler, unmatchedHandler } from '../../lib/aws/handlers.ts';
import { bundleBudgets, bundleCode, bundleFiles, bundleLambdas, projectRoot, type LambdaBundle } from '../../lib/build/lambdaBundles.ts';
import { createTransaction, createWithdrawal, getHealth, getMe, getOpenApi, getWithdrawalQuote, inviteMember, listTransactions, resendInvitation, routeKey, sendEmailVerification, routeNeeds, routes, type RouteDefinition } from '#contract/routes.ts';
import { workflows } from '#contract/workflows.ts';
import { workflowDefinition } from '#contract/taskRetryPolicy.ts';
import { eventRules, mailFeedbackRule } from '#contract/events.ts';
import { localOnlyMetrics, metricDimensions, parkableOperations, parkedStatuses, sweptOperations } from '#contract/metrics.ts';
import { tableActions } from '../../lib/aws/serviceFunction.ts';
import { taskFunctionTimeoutSeconds } from '../../lib/aws/workflowStack.ts';
import { attemptTimeoutMs } from '#domain/webhookRetries.ts';
import { buildOpenApiDocument } from '#contract/openapi.ts';
import { openApiDocumentFile } from '../../functions/api/discovery/openApiDocument.ts';
import { table as tableDefinition } from '#contract/table.ts';

/**
 * The AWS wiring, synthesized in process: the stacks are built from the same wiring tables as
 * the local runtime, and cdk-nag (a policy-validation plugin) runs on every synth. Bundling runs
 * once for the file; the stages reuse the bundles.
 */
let bundleRoot: string;
let bundles: LambdaBundle[];
/** The simulated stage's: the same entries, each with the provider simulators' wiring (docs/decisions/121). */
let simulatedBundles: LambdaBundle[];

interface Synthesized {
  stacks: PaymentsStacks;
  /**
   * One template per stack; `api` is the API stack with its nested stacks (every endpoint's function,
   * role, policy, log group, integration, permission and routes sit in the nested stack of its area),
   * so what is asserted on it holds for the API as deployed, wherever each resource sits.
   */
  templates: Record<'data' | 'workflows' | 'api' | 'events' | 'alarms', Template>;
  /** The API stack alone, and each of its nested stacks by area. */
  apiParent: Template;
  apiAreas: Map<string, Template>;
  /** Resources per template of the cloud assembly: every stack and nested stack, by template file. */
  resourceCounts: Map<string, number>;
  validationReport: { pluginReports: { pluginName: string; violations: unknown[] }[] };
  errors: unknown[];
  /** Every template of the cloud assembly (stacks and nested stacks), by file name, as CloudFormation receives them. */
  files: Map<string, CfnTemplate>;
}

interface CfnTemplate {
  Resources?: Record<string, { Type: string; Properties?: Record<string, any>; DeletionPolicy?: string }>;
  Outputs?: Record<string, { Export?: { Name: string } }>;
}

/**
 * The context docs/deployment.md tells a deployer to give, as .ci/run gives it to the CLI: an
 * explicit account and region, so every ARN, acknowledgement and validator sees concrete values (an
 * acknowledgement written for a token such as <AWS::Region> would not match them).
 */
const deployContext = { account: '123456789012', region: 'eu-west-1', senderIdentity: 'payments.example.com' };
/** A domain of the deployer's for the edge, with its certificate in us-east-1 (docs/deployment.md). */
const customDomain = { edgeDomain: 'api.pay.example.com', edgeCertificateArn: 'arn:aws:acm:us-east-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789' };

/**
 * What the CDK CLI adds to every app's context (path and asset metadata, version reporting): with it the
 * templates are byte for byte those `cdk synth` writes, so cfn-guard's answers for .ci/run's synths
 * serve the same templates here (lib/aws/cachedCfnGuard.ts, docs/decisions/139).
 */
const cliContext = { 'aws:cdk:enable-path-metadata': true, 'aws:cdk:enable-asset-metadata': true, 'aws:cdk:version-reporting': true };

function synthesize(environment: string, context: Record<string, string> = deployContext): Synthesized {
  const app = new App({ context: { ...cliContext, environment, ...context } });
  const stacks = buildPaymentsApp(app, environment === 'simulated' ? simulatedBundles : bundles);
  // Throws, with the report, if any validation plugin (cdk-nag) found an unacknowledged error.
  const assembly = app.synth();
  const templateFiles = readdirSync(assembly.directory).filter((file) => file.endsWith('.template.json'));
  const files = new Map(templateFiles.map((file) => [file, JSON.parse(readFileSync(join(assembly.directory, file), 'utf8')) as CfnTemplate]));
  const resourceCounts = new Map([...files].map(([file, template]) => [file, Object.keys(template.Resources ?? {}).length]));
  return {
    stacks,
    templates: {
      data: Template.fromStack(stacks.data),
      workflows: Template.fromStack(stacks.workflows),
      api: apiTemplate(stacks.api),
      events: Template.fromStack(stacks.events),
      alarms: Template.fromStack(stacks.alarms),
    },
    apiParent: Template.fromStack(stacks.api),
    apiAreas: new Map([...stacks.api.areas].map(([area, nested]) => [area, Template.fromStack(nested)])),
    resourceCounts,
    validationReport: JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')),
    errors: assembly.stacks.flatMap((stack) => stack.messages.filter((message) => message.level === 'error')),
    files,
  };
}

/**
 * The API stack and its nested stacks as one template, as CloudFormation sees them deployed: their
 * resources side by side (a logical id is unique within a template only, so a clash between two of
 * them fails here instead of hiding one), each nested stack's parameters replaced by what the parent
 * passes them (`{"Ref": "referenceto…ApiRef"}` reads `{"Ref": "Api…"}` again, as in one stack).
 */
function apiTemplate(api: ApiStack): Template {
  type Json = { Parameters?: Record<string, unknown>; Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }> };
  const parent = Template.fromStack(api).toJSON() as Json;
  const resources = { ...parent.Resources };
  for (const nested of api.areas.values()) {
    const passed = parent.Resources[api.getLogicalId(nested.nestedStackResource!)]!.Properties!.Parameters as Record<string, unknown> ?? {};
    const template = Template.fromStack(nested).toJSON() as Json;
    expect(Object.keys(template.Parameters ?? {}).sort()).toEqual(Object.keys(passed).sort());
    const resolved = JSON.parse(JSON.stringify(template.Resources), (_key, value: unknown) => {
      const ref = (value as { Ref?: unknown } | null)?.Ref;
      return typeof ref === 'string' && Object.keys(value as object).length === 1 && ref in passed ? passed[ref] : value;
    }) as Json['Resources'];
    for (const [id, resource] of Object.entries(resolved)) {
      if (resource.Type === 'AWS::CDK::Metadata') continue; // CDK's own, once per template
      if (id in resources) throw new Error(`${id} is in two of the API's stacks`);
      resources[id] = resource;
    }
  }
  return Template.fromJSON({ Resources: resources });
}

let simulated: Synthesized;
let sandbox: Synthesized;
let production: Synthesized;

/** House bank accounts `sandbox` is synthesized with: every function must be given them. */
const houseAccounts = [{ currency: 'USD', accountName: 'Payments Ltd', accountNumber: '8000012345', bic: 'CHASUS33' }];

beforeAll(() => {
  bundleRoot = mkdtempSync(join(tmpdir(), 'payments-bundles-'));
  // The bundles `cdk synth` makes (cdk.out/.bundles), reused when nothing they are made of changed:
  // after .ci/run's synths, no bundling here.
  bundles = bundleLambdas(lambdaEntries());
  simulatedBundles = bundleLambdas(lambdaEntries(), { flavor: 'simulated' });
  // `simulated` is the stage where a sender identity is optional: synthesized without one.
  simulated = synthesize('simulated', { account: deployContext.account, region: deployContext.region });
  sandbox = synthesize('sandbox', { ...deployContext, houseAccounts: JSON.stringify(houseAccounts) });
  production = synthesize('production');
  // Bundling every Lambda and synthesizing three stages, each validated by cdk-nag and cfn-guard,
  // takes minutes on two busy cores.
}, 600_000);

afterAll(() => {
  if (bundleRoot) rmSync(bundleRoot, { recursive: true, force: true });
});

type Resource = { Properties: Record<string, any>; DeletionPolicy?: string };

function functionsByEntry(template: Template): Map<string, Resource> {
  // The service's own functions (CDK's cross-region reference readers and writers are not): descriptions `<handler module> (<environment>)`.
  const functions = (Object.values(template.findResources('AWS::Lambda::Function')) as Resource[]).filter((fn) => fn.Properties.Environment?.Variables?.SERVICE_ENVIRONMENT);
  return new Map(functions.map((fn) => [String(fn.Properties.Description).replace(/ \(\w+\)$/, ''), fn]));
}

interface Statement { actions: string[]; resources: string[] }

/** The role's policy statements, actions and resources as flat strings (tokens rendered as JSON). */
function statementsOf(template: Template, fn: Resource): Statement[] {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
  const asList = (value: unknown) => (Array.isArray(value) ? value : [value]);
  const render = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value).replace(/[{}"]|Fn::Join|\[|\]|,/g, ''));
  return policies
    .filter((policy) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: unknown; Resource: unknown }[])
    .map((statement) => ({ actions: asList(statement.Action) as string[], resources: asList(statement.Resource).map(render) }));
}

function rowsByHandler(): Map<string, RouteDefinition[]> {
  const rows = new Map<string, RouteDefinition[]>();
  for (const row of routes) rows.set(row.handler, [...(rows.get(row.handler) ?? []), row]);
  return rows;
}

function bundleOf(entry: string): LambdaBundle {
  return bundles.find((bundle) => bundle.entry === entry)!;
}

function policyOf(template: Template, fn: Resource): string {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
  return JSON.stringify(policies.filter((policy) => policy.Properties.Roles.some((role: { Ref: string }) => role.Ref === roleId)));
}

describe('bundles', () => {
  it('builds one minified ESM bundle per distinct handler module', () => {
    expect(bundles.map((bundle) => bundle.entry).sort()).toEqual([...new Set(lambdaEntries())].sort());
    expect(lambdaEntries()).toContain(unmatchedHandler);
    expect(lambdaEntries()).toContain(outboxForwarderHandler);
    for (const bundle of bundles) {
      expect(bundle.importBytes).toBeGreaterThan(0);
      expect(bundle.bytes).toBeGreaterThanOrEqual(bundle.importBytes);
      // Every file of the asset, index.mjs and each chunk, defines the `require` its CommonJS dependencies call.
      for (const file of bundleFiles(bundle)) expect(readFileSync(file, 'utf8'), file).toMatch(/^import\{createRequire as|^import \{ createRequire as/);
    }
  });

  it('reuses the bundles of an earlier build when nothing they are made of changed, and rebuilds otherwise', () => {
    const outRoot = join(bundleRoot, 'reuse');
    const [first] = bundleLambdas([getHealth.handler], { outRoot });
    const builtAt = statSync(join(first!.outdir, 'index.mjs')).mtimeMs;
    const [again] = bundleLambdas([getHealth.handler], { outRoot });
    expect(statSync(join(again!.outdir, 'index.mjs')).mtimeMs).toBe(builtAt);
    // Another list of entries is another build: nothing stale is left behind.
    const other = bundleLambdas([unmatchedHandler], { outRoot });
    expect(other.map((bundle) => bundle.entry)).toEqual([unmatchedHandler]);
    expect(existsSync(first!.outdir)).toBe(false);
  });

  it('holds the provider simulators in the simulated stage\'s bundles only: sandbox and production deploy ports and real adapters', () => {
    // Each simulator names itself in its answers (simulated-payout, …; the custodian in its HMAC key); no other code says these words.
    const simulatorCode = /simulated-(payout|chain|fx|issuer|onramp|offramp)\b|simulated-custody\/v1/;
    const holdsSimulators = (bundle: LambdaBundle) => simulatorCode.test(bundleCode(bundle));
    expect(bundles.filter(holdsSimulators).map((bundle) => bundle.entry)).toEqual([]);
    expect(simulatedBundles.filter((bundle) => !holdsSimulators(bundle)).map((bundle) => bundle.entry)).toEqual([]);
  });

  it('keeps every bundle within its budget: each under the maximum, the median under its own', () => {
    for (const [flavor, built] of [['deployed', bundles], ['simulated', simulatedBundles]] as const) {
      const budget = bundleBudgets[flavor];
      const sizes = built.map((bundle) => bundle.bytes).sort((a, b) => a - b);
      expect(built.filter((bundle) => bundle.bytes > budget.maxBytes).map((bundle) => `${bundle.entry} ${bundle.bytes} B`), flavor).toEqual([]);
      expect(sizes[Math.floor(sizes.length / 2)], `${flavor} median`).toBeLessThanOrEqual(budget.medianBytes);
    }
  });

  it('carries no MIME composer and no look-alike table where they are not used', () => {
    const code = (bundle: LambdaBundle) => bundleCode(bundle);
    // SES composes the message (docs/decisions/126): nodemailer is the local outbox's only.
    expect([...bundles, ...simulatedBundles].filter((bundle) => code(bundle).includes('nodemailer.com')).map((bundle) => bundle.entry)).toEqual([]);
    // The look-alike table (ASCII "M", "m" and Latin "ɱ" read as "rn" among its readings) only where a name is screened.
    const screens = bundles.filter((bundle) => code(bundle).includes('rn:"Mm\\u0271')).map((bundle) => bundle.entry);
    expect(screens).toContain(createTransaction.handler);
    expect(screens).not.toContain(getMe.handler);
    expect(screens).not.toContain(listTransactions.handler);
  });

  it('builds no schema a function does not read (docs/decisions/165)', () => {
    // GET /treasury/withdrawals/quote reads its query's schema; the same module's POST body and the error
    // bodies beside errorCodeStatus are no part of its bundle. Each schema names itself in its metadata.
    const quote = bundleCode(bundleOf(getWithdrawalQuote.handler));
    expect(quote).toContain('One of the networks of GET /treasury/crypto-deposit.');
    expect(quote).not.toContain('CreateWithdrawalRequest');
    expect(quote).not.toContain('InsufficientFundsError');
    expect(quote).not.toContain('WithdrawalStatus');
    expect(bundleCode(bundleOf(createWithdrawal.handler))).toContain('CreateWithdrawalRequest');
  });

  it('serves GET /openapi.json from the document generated at build time: written beside its bundle, with no generator inside', () => {
    const bundle = bundleOf(getOpenApi.handler);
    expect(JSON.parse(readFileSync(join(bundle.outdir, openApiDocumentFile), 'utf8'))).toEqual(buildOpenApiDocument());
    // The generator's document text (its servers' description) is not in the code.
    expect(bundleCode(bundle)).not.toContain('Issued per customer.');
  });

  it('refuses an entry whose module does not exist, naming it', () => {
    expect(() => bundleLambdas(['functions/api/doesNotExist.ts'], { outRoot: join(bundleRoot, 'missing') })).toThrow(/doesNotExist\.ts/);
  });
});

describe('stage', () => {
  it('synthesizes for the account and region of the context, as the CLI does', () => {
    for (const stack of [production.stacks.data, production.stacks.api, production.stacks.alarms]) {
      expect(stack.account).toBe(deployContext.account);
      expect(stack.region).toBe(deployContext.region);
    }
    expect(() => buildPaymentsApp(new App({ context: { environment: 'simulated', account: '1234' } }), bundles)).toThrow(/"account"/);
  });

  it('refuses to synthesize sandbox or production without a sender identity, naming the context key', () => {
    for (const environment of ['sandbox', 'production']) {
      expect(() => buildPaymentsApp(new App({ context: { environment } }), bundles)).toThrow(/CDK context "senderIdentity" is required on/);
    }
    expect(() => buildPaymentsApp(new App({ context: { environment: 'sandbox', senderIdentity: 'not an identity' } }), bundles)).toThrow(/senderIdentity/);
  });

  it('refuses an environment outside simulated, sandbox and production', () => {
    expect(() => buildPaymentsApp(new App({ context: { environment: 'prod' } }), bundles)).toThrow(/simulated, sandbox, production/);
  });

  it('gives every function the house accounts of the context, checked at synth; none without it', () => {
    // `sandbox` is synthesized with them (beforeAll), validators included.
    const functions = Object.values(sandbox.templates.api.findResources('AWS::Lambda::Function')) as Resource[];
    const serviceFunctions = functions.filter((fn) => fn.Properties.Environment?.Variables?.TABLE_NAME);
    expect(serviceFunctions.length).toBeGreaterThan(10);
    for (const fn of serviceFunctions) expect(JSON.parse(fn.Properties.Environment.Variables.HOUSE_ACCOUNTS)).toEqual(houseAccounts);
    const without = Object.values(simulated.templates.api.findResources('AWS::Lambda::Function')) as Resource[];
    expect(without.some((fn) => fn.Properties.Environment?.Variables?.HOUSE_ACCOUNTS)).toBe(false);

    const twice = JSON.stringify([...houseAccounts, ...houseAccounts]);
    expect(() => buildPaymentsApp(new App({ context: { ...deployContext, environment: 'sandbox', houseAccounts: twice } }), bundles)).toThrow(/houseAccounts.*configured twice/);
    expect(() => buildPaymentsApp(new App({ context: { ...deployContext, environment: 'sandbox', houseAccounts: '[{' } }), bundles)).toThrow(/JSON array/);
  });

  it('names every stack and state machine after the stage', () => {
    expect(production.stacks.api.stackName).toBe('payments-production-api');
    production.templates.workflows.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineName: Match.stringLikeRegexp('^payments-production-'),
    });
  });
});

describe('data stack', () => {
  it('builds the single table from functions/contract/table.ts', () => {
    const table = simulated.templates.data;
    table.resourceCountIs('AWS::DynamoDB::Table', 1);
    table.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [
        { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' },
        { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' },
      ],
      AttributeDefinitions: Match.arrayWith(
        ['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      ),
      BillingMode: 'PAY_PER_REQUEST',
      GlobalSecondaryIndexes: tableDefinition.globalIndexes.map((index) => Match.objectLike({
        IndexName: index.name,
        KeySchema: [{ AttributeName: index.partitionKey, KeyType: 'HASH' }, { AttributeName: index.sortKey, KeyType: 'RANGE' }],
        Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projects] },
      })),
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('protects the table and the cursor key outside simulated, and not in simulated', () => {
    production.templates.data.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true, SSESpecification: { SSEEnabled: true } }),
    });
    production.templates.data.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
    simulated.templates.data.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
  });

  it('holds the indexes `tableIndexes` names while a deployed table moves to new ones (decision 127), and refuses a name it does not know', () => {
    const dataStackWith = (tableIndexes: string) => {
      const app = new App({ context: { tableIndexes } });
      return new DataStack(app, 'Data', { settings: stageSettings('production') });
    };
    const indexes = Template.fromStack(dataStackWith('gsi1,gsi2,gsi1v2')).findResources('AWS::DynamoDB::Table');
    const [tableResource] = Object.values(indexes) as { Properties: { GlobalSecondaryIndexes: { IndexName: string; Projection: { ProjectionType: string } }[] } }[];
    expect(tableResource!.Properties.GlobalSecondaryIndexes.map((index) => [index.IndexName, index.Projection.ProjectionType])).toEqual([
      ['gsi1', 'ALL'], ['gsi2', 'ALL'], ['gsi1v2', 'INCLUDE'],
    ]);
    expect(() => dataStackWith('gsi1,gsi3')).toThrow(/tableIndexes names gsi3/);
  });

  it('generates the cursor HMAC key in Secrets Manager', () => {
    simulated.templates.data.hasResourceProperties('AWS::SecretsManager::Secret', {
      GenerateSecretString: Match.objectLike({ PasswordLength: 64 }),
    });
  });
});

describe('api stack', () => {
  it('makes one Lambda per distinct handler module, so unbuilt routes share one', () => {
    const expected = new Set([...routes.map((row) => row.handler), unmatchedHandler]);
    const functions = functionsByEntry(simulated.templates.api);
    expect(new Set(functions.keys())).toEqual(expected);
    simulated.templates.api.resourceCountIs('AWS::Lambda::Function', expected.size);
  });

  it('keeps the shared API in the parent stack and each area\'s functions, integrations, permissions and routes in its nested stack', () => {
    const parent = production.apiParent;
    parent.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    parent.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
    parent.resourceCountIs('AWS::SES::ConfigurationSet', 1);
    // Only the unmatched-route function behind $default, which belongs to the API itself.
    expect([...functionsByEntry(parent).keys()]).toEqual([unmatchedHandler]);
    expect((Object.values(parent.findResources('AWS::ApiGatewayV2::Route')) as Resource[]).map((route) => route.Properties.RouteKey)).toEqual(['$default']);
    parent.resourceCountIs('AWS::CloudFormation::Stack', production.apiAreas.size);

    const areaOfHandler = new Map([...rowsByHandler()].map(([handler, rows]) => [handler, apiAreaOf(rows)]));
    expect([...production.apiAreas.keys()].sort()).toEqual([...new Set(areaOfHandler.values())].sort());
    for (const [area, template] of production.apiAreas) {
      expect(apiAreas, area).toContain(area);
      const handlers = [...areaOfHandler].filter(([, of]) => of === area).map(([handler]) => handler);
      expect([...functionsByEntry(template).keys()].sort(), area).toEqual([...handlers].sort());
      const keys = (Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[]).map((route) => route.Properties.RouteKey);
      expect(keys.sort(), area).toEqual(routes.filter((row) => handlers.includes(row.handler)).map(routeKey).sort());
      // Each function's role, policy, log group, integration and invoke permission sit beside it.
      for (const type of ['AWS::IAM::Role', 'AWS::IAM::Policy', 'AWS::Logs::LogGroup', 'AWS::ApiGatewayV2::Integration', 'AWS::Lambda::Permission']) {
        template.resourceCountIs(type, handlers.length);
      }
      // The API is the parent's, named through a parameter of the nested stack: nothing refers to a sibling area.
      for (const route of Object.values(template.findResources('AWS::ApiGatewayV2::Route')) as Resource[]) {
        expect(Object.keys(template.toJSON().Parameters ?? {})).toContain(route.Properties.ApiId.Ref);
      }
    }
  });

  it('makes one route per row of the route table, plus $default for everything else', () => {
    const api = simulated.templates.api;
    const keys = (Object.values(api.findResources('AWS::ApiGatewayV2::Route')) as Resource[]).map((route) => route.Properties.RouteKey);
    expect(keys.sort()).toEqual([...routes.map(routeKey), '$default'].sort());
    expect(keys).toContain('GET /me');
  });

  it('gives every function the same runtime defaults and environment', () => {
    for (const template of Object.values(simulated.templates)) {
      for (const fn of functionsByEntry(template).values()) {
        expect(fn.Properties).toMatchObject({
          Runtime: 'nodejs22.x',
          Architectures: ['arm64'],
          MemorySize: 512,
          Handler: 'index.handler',
          TracingConfig: { Mode: 'Active' },
          LoggingConfig: { LogFormat: 'JSON' },
        });
        expect(Object.keys(fn.Properties.Environment.Variables)).toEqual(expect.arrayContaining([
          'TABLE_NAME', 'SERVICE_ENVIRONMENT', 'WORKFLOW_ARN_PREFIX', 'CURSOR_SECRET_ARN',
          'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED',
        ]));
        // Source maps are read at the first trace by the bundle itself, not at every cold start (docs/decisions/163).
        expect(fn.Properties.Environment.Variables.NODE_OPTIONS).toBeUndefined();
        // The alarms read Powertools metrics in this namespace with this service dimension.
        expect(fn.Properties.Environment.Variables).toMatchObject({ POWERTOOLS_SERVICE_NAME: 'payments', POWERTOOLS_METRICS_NAMESPACE: 'Payments' });
        expect(fn.Properties.Environment.Variables.SERVICE_ENVIRONMENT).toBe('simulated');
        expect(JSON.stringify(fn.Properties.Environment.Variables.WORKFLOW_ARN_PREFIX)).toContain(':stateMachine:payments-simulated-');
      }
    }
    for (const fn of functionsByEntry(simulated.templates.api).values()) expect(fn.Properties.Timeout).toBe(10);
  });

  it('grants each function what its route rows need and nothing more (table, workflows it starts, cursor key)', () => {
    const api = production.templates.api;
    const functions = functionsByEntry(api);
    const arnOf = (workflow: string) => `:stateMachine:payments-production-${workflow}`;
    for (const [handler, rows] of rowsByHandler()) {
      const statements = statementsOf(api, functions.get(handler)!);
      const needs = rows.map(routeNeeds);
      const table = needs.some((need) => need.table === 'write') ? 'write' : needs.some((need) => need.table === 'read') ? 'read' : 'none';
      const dynamo = new Set(statements.flatMap((statement) => statement.actions).filter((action) => action.startsWith('dynamodb:')));
      const extras = [...new Set(needs.flatMap((need) => need.tableExtras))].map((action) => `dynamodb:${action}`);
      expect([...dynamo].sort(), handler).toEqual([...tableActions[table], ...extras].sort());
      if (table === 'read') for (const refused of ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem', 'dynamodb:PutItem']) expect(dynamo, handler).not.toContain(refused);
      // DeleteItem and BatchWriteItem only where a row asks (the local grant check holds the code to it).
      if (!extras.includes('dynamodb:DeleteItem')) expect(dynamo, handler).not.toContain('dynamodb:DeleteItem');
      if (!extras.includes('dynamodb:BatchWriteItem')) expect(dynamo, handler).not.toContain('dynamodb:BatchWriteItem');

      const starts = new Set(needs.flatMap((need) => need.starts));
      const started = statements.filter((statement) => statement.actions.includes('states:StartExecution')).flatMap((statement) => statement.resources);
      expect(started.length, handler).toBe(starts.size);
      for (const workflow of starts) expect(started.some((arn) => arn.endsWith(arnOf(workflow))), `${handler} starts ${workflow}`).toBe(true);

      const cursors = needs.some((need) => need.cursors);
      const secretsRead = statements.filter((statement) => statement.actions.includes('secretsmanager:GetSecretValue')).flatMap((statement) => statement.resources);
      expect(secretsRead.some((resource) => resource.includes('CursorKey')), handler).toBe(cursors);
      // Beside it, only the edge's origin secret, which every endpoint reads (docs/decisions/104).
      expect(secretsRead.filter((resource) => !resource.includes('CursorKey')).every((resource) => resource.includes('OriginSecret')), handler).toBe(true);
      // The declaration matches the code: a bundle that can read the cursor key, or start an
      // execution, is one whose rows say so.
      const code = bundleCode(bundleOf(handler));
      expect(/(["'])the cursor key\1/.test(code), `${handler} signs cursors`).toBe(cursors);
      // GET /health holds the workflow port (reachable()) and never starts anything: its role has no states: grant (below).
      if (handler !== getHealth.handler) expect(code.includes('"StartExecution"'), `${handler} starts workflows`).toBe(starts.size > 0);
      // Sealed secrets: a row that seals (webhook secrets, a member's first or rotated unsubscribe key) makes data keys,
      // a row that checks an unsubscribe link opens them; no endpoint does both, and no other endpoint touches the key.
      const kms = statements.flatMap((statement) => statement.actions).filter((action) => action.startsWith('kms:'));
      const wanted = [...(needs.some((need) => need.sealsSecrets) ? ['kms:GenerateDataKey'] : []), ...(needs.some((need) => need.opensSecrets) ? ['kms:Decrypt'] : [])];
      expect(kms.sort(), handler).toEqual(wanted.sort());
      expect(needs.some((need) => need.sealsSecrets) && needs.some((need) => need.opensSecrets), handler).toBe(false);
    }
    // GET /health is open and calls no AWS API per request (docs/decisions/106): no Step Functions grant at all
    // (test/integration/workflows.test.ts: the adapter answers reachable without a call).
    expect(statementsOf(api, functions.get(getHealth.handler)!).flatMap((statement) => statement.actions).filter((action) => action.startsWith('states:'))).toEqual([]);
    expect(policyOf(api, functions.get(unmatchedHandler)!)).not.toContain('dynamodb:');
  });

  it('lets event targets start only the workflows of their rules', () => {
    const events = production.templates.events;
    const functions = functionsByEntry(events);
    for (const rule of eventRules) {
      const started = statementsOf(events, functions.get(rule.target)!)
        .filter((statement) => statement.actions.includes('states:StartExecution')).flatMap((statement) => statement.resources);
      expect(started.length, rule.target).toBe(rule.starts?.length ?? 0);
      for (const workflow of rule.starts ?? []) expect(started.some((arn) => arn.endsWith(`:stateMachine:payments-production-${workflow}`))).toBe(true);
      // Only the notification mailer (members' unsubscribe keys, to sign the links it mails) and the webhook starter (the first attempt's signatures) open sealed secrets.
      const kms = statementsOf(events, functions.get(rule.target)!).flatMap((statement) => statement.actions).filter((action) => action.startsWith('kms:'));
      expect(kms, rule.target).toEqual(rule.opensSecrets ? ['kms:Decrypt'] : []);
      // Only the audit trail writes a queue batch's items in one BatchWriteItem (decision 141).
      const batchWrite = statementsOf(events, functions.get(rule.target)!).some((statement) => statement.actions.includes('dynamodb:BatchWriteItem'));
      expect(batchWrite, rule.target).toBe(rule.batchWrites === true);
    }
    expect(eventRules.filter((rule) => rule.batchWrites).map((rule) => rule.target)).toEqual(['functions/events/auditTrail.ts']);
    expect(eventRules.filter((rule) => rule.opensSecrets).map((rule) => rule.target)).toEqual(['functions/events/notificationMailer.ts', 'functions/events/webhookStarter.ts']);
  });

  it('lets workflow tasks start only the workflows their registry row names (a batch its payments)', () => {
    const template = production.templates.workflows;
    const functions = functionsByEntry(template);
    for (const workflow of Object.values(workflows)) {
      for (const task of Object.values(workflow.tasks) as { handler: string; starts?: readonly string[] }[]) {
        const started = statementsOf(template, functions.get(task.handler)!)
          .filter((statement) => statement.actions.includes('states:StartExecution')).flatMap((statement) => statement.resources);
        expect(started.length, task.handler).toBe(task.starts?.length ?? 0);
        for (const name of task.starts ?? []) expect(started.some((arn) => arn.endsWith(`:stateMachine:payments-production-${name}`)), task.handler).toBe(true);
      }
    }
    expect(workflows.batch.tasks.BatchStep.starts).toEqual(['payment']);
    // Only the webhook delivery task opens webhook signing secrets.
    for (const workflow of Object.values(workflows)) {
      for (const task of Object.values(workflow.tasks) as { handler: string; opensSecrets?: boolean }[]) {
        const kms = statementsOf(template, functions.get(task.handler)!).flatMap((statement) => statement.actions).filter((action) => action.startsWith('kms:'));
        expect(kms, task.handler).toEqual(task.opensSecrets ? ['kms:Decrypt'] : []);
      }
    }
    expect(workflows.webhookDelivery.tasks.DeliveryStep.opensSecrets).toBe(true);
  });

  it("sends mail as the account's SES identity through the stage's configuration set, whose bounces and complaints reach the service", () => {
    const api = production.templates.api;
    // The identity is the account's (made once per account and region: docs/decisions/105), never a stage's.
    for (const synthesized of [simulated, sandbox, production]) {
      for (const template of synthesized.files.values()) expect(Object.values(template.Resources ?? {}).map((resource) => resource.Type)).not.toContain('AWS::SES::EmailIdentity');
    }
    api.hasResourceProperties('AWS::SES::ConfigurationSet', { Name: 'payments-production' });
    api.hasResourceProperties('AWS::SES::ConfigurationSetEventDestination', {
      EventDestination: Match.objectLike({
        Enabled: true,
        MatchingEventTypes: Match.arrayEquals(['bounce', 'complaint']),
        EventBridgeDestination: { EventBusArn: Match.anyValue() },
      }),
    });
    expect(JSON.stringify(api.findResources('AWS::SES::ConfigurationSetEventDestination'))).toMatch(/:event-bus\/default"/);
    const mailers = new Set([...routes.filter((row) => row.sendsMail).map((row) => row.handler), ...eventRules.filter((rule) => rule.sendsMail).map((rule) => rule.target)]);
    expect(mailers).toEqual(new Set([inviteMember.handler, resendInvitation.handler, sendEmailVerification.handler, 'functions/events/notificationMailer.ts']));
    for (const template of [api, production.templates.events]) {
      for (const [entry, fn] of functionsByEntry(template)) {
        const mails = mailers.has(entry);
        const sends = statementsOf(template, fn).filter((statement) => statement.actions.some((action) => action.startsWith('ses:')));
        expect(sends.length > 0, entry).toBe(mails);
        for (const statement of sends) for (const resource of statement.resources) expect(JSON.stringify(resource), entry).not.toContain('*');
        // Every function knows the stage's transport (verificationAvailable); only the mailers may send.
        expect(fn.Properties.Environment.Variables.MAIL_TRANSPORT, entry).toBe('ses');
        if (mails) {
          // The stage's public address: its CloudFront distribution (the execute-api address refuses them).
          expect(JSON.stringify(fn.Properties.Environment.Variables.PUBLIC_BASE_URL)).toMatch(/Edge.*DomainName/);
          expect(fn.Properties.Environment.Variables.MAIL_FROM).toBe('"Payments" <no-reply@payments.example.com>');
          expect(fn.Properties.Environment.Variables.MAIL_CONFIGURATION_SET).toBe('payments-production');
        }
      }
    }
    for (const fn of functionsByEntry(simulated.templates.api).values()) expect(fn.Properties.Environment.Variables.MAIL_TRANSPORT).toBe('none');
    const events = production.templates.events;
    events.hasResourceProperties('AWS::Events::Rule', {
      Name: 'payments-production-mailFeedback',
      EventBusName: 'default',
      EventPattern: { source: ['aws.ses'], 'detail-type': ['Email Bounced', 'Email Complaint Received'], detail: { mail: { tags: { 'ses:configuration-set': ['payments-production'] } } } },
    });
    expect(functionsByEntry(events).has(mailFeedbackRule.target)).toBe(true);
    // A simulated stack without an identity sends nothing and has no configuration set.
    simulated.templates.api.resourceCountIs('AWS::SES::ConfigurationSet', 0);
  });

  it('logs access on the stage and throttles it', () => {
    simulated.templates.api.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('requestId') }),
      DefaultRouteSettings: Match.objectLike({ ThrottlingRateLimit: Match.anyValue(), ThrottlingBurstLimit: Match.anyValue() }),
    });
  });
});

describe('workflow stack', () => {
  it('makes one logged, traced Standard state machine per workflow, with every task substituted', () => {
    const template = simulated.templates.workflows;
    template.resourceCountIs('AWS::StepFunctions::StateMachine', Object.keys(workflows).length);
    for (const workflow of Object.values(workflows)) {
      template.hasResourceProperties('AWS::StepFunctions::StateMachine', {
        StateMachineName: `payments-simulated-${workflow.name}`,
        StateMachineType: 'STANDARD',
        LoggingConfiguration: Match.objectLike({ Level: 'ALL', IncludeExecutionData: false }),
        TracingConfiguration: { Enabled: true },
        DefinitionSubstitutions: Object.fromEntries(Object.keys(workflow.tasks).map((key) => [key, Match.anyValue()])),
      });
    }
    const taskHandlers = new Set(Object.values(workflows).flatMap((workflow) => Object.values(workflow.tasks).map((task) => task.handler)));
    // Beside the tasks, the sweeper: on an EventBridge Scheduler schedule, invoking it every 5 minutes.
    expect(new Set(functionsByEntry(template).keys())).toEqual(new Set([...taskHandlers, sweeperHandler]));
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)',
      Target: Match.objectLike({ Arn: Match.anyValue(), RetryPolicy: Match.objectLike({ MaximumRetryAttempts: 0 }) }),
    });
  });

  it('deploys each workflow as the local runner runs it: its ASL with the task policy, each task the function of its handler', () => {
    const template = simulated.templates.workflows;
    const machines = Object.values(template.findResources('AWS::StepFunctions::StateMachine')) as Resource[];
    // A function's description is `<handler module> (<environment>)`.
    const logicalIdOf = new Map(Object.entries(template.findResources('AWS::Lambda::Function')).map(([id, fn]) => [String((fn as Resource).Properties.Description).replace(/ \(\w+\)$/, ''), id]));
    for (const workflow of Object.values(workflows)) {
      const machine = machines.find((resource) => resource.Properties.StateMachineName === `payments-simulated-${workflow.name}`)!;
      // Each `${Task}` resolved to the function it names: in the template by DefinitionSubstitutions, locally by the registry's handler.
      const deployed = (machine.Properties.DefinitionString as string).replace(/\$\{(\w+)\}/g, (_, key: string) => machine.Properties.DefinitionSubstitutions[key]['Fn::GetAtt'][0] as string);
      const local = JSON.stringify(workflowDefinition(workflow, projectRoot)).replace(/\$\{(\w+)\}/g, (_, key: string) => logicalIdOf.get((workflow.tasks as Record<string, { handler: string }>)[key]!.handler)!);
      expect(JSON.parse(deployed), workflow.name).toEqual(JSON.parse(local));
    }
  });
});

describe('events stack', () => {
  it('has the bus, one rule per event rule, and a queue with a dead-letter queue behind each', () => {
    const template = simulated.templates.events;
    template.resourceCountIs('AWS::Events::EventBus', 1);
    template.resourceCountIs('AWS::Events::Rule', eventRules.length);
    for (const rule of eventRules) {
      template.hasResourceProperties('AWS::Events::Rule', { Name: `payments-simulated-${rule.name}`, EventPattern: rule.pattern });
      template.hasResourceProperties('AWS::SQS::Queue', {
        QueueName: `payments-simulated-${rule.name}`,
        RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: 5 },
        SqsManagedSseEnabled: true,
      });
    }
    // Rule queues, their dead-letter queues, and the stream's on-failure queue; every one refuses plain HTTP.
    template.resourceCountIs('AWS::SQS::Queue', eventRules.length * 2 + 1);
    const policies = Object.values(template.findResources('AWS::SQS::QueuePolicy')) as Resource[];
    expect(policies).toHaveLength(eventRules.length * 2 + 1);
    for (const policy of policies) expect(JSON.stringify(policy)).toContain('"aws:SecureTransport":"false"');
    const targets = new Set(eventRules.map((rule) => rule.target));
    expect(new Set(functionsByEntry(template).keys())).toEqual(new Set([...targets, outboxForwarderHandler]));
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { FunctionResponseTypes: ['ReportBatchItemFailures'], EventSourceArn: Match.objectLike({ 'Fn::GetAtt': Match.anyValue() }) });
  });

  it("gives the webhook starter the delivery task's time for a batch of first attempts side by side, its queue hiding a message six times that", () => {
    const template = simulated.templates.events;
    const starter = functionsByEntry(template).get('functions/events/webhookStarter.ts')!;
    expect(starter.Properties.Timeout).toBeGreaterThanOrEqual(taskFunctionTimeoutSeconds);
    // The receiver's 10 s, and as much again for the address lookup and the calls around the POST.
    expect(starter.Properties.Timeout * 1000).toBeGreaterThanOrEqual(2 * attemptTimeoutMs);
    template.hasResourceProperties('AWS::SQS::Queue', { QueueName: 'payments-simulated-webhookDelivery', VisibilityTimeout: starter.Properties.Timeout * 6 });
  });

  it('subscribes the outbox forwarder to new outbox items only, with retries and an on-failure queue', () => {
    const template = simulated.templates.events;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['outboxEvent'] } } } }) }] },
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: Match.anyValue(),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      StartingPosition: 'TRIM_HORIZON',
      // No batching window: an event goes on at the poll that finds it (docs/decisions/132).
      MaximumBatchingWindowInSeconds: Match.absent(),
    });
    const forwarder = functionsByEntry(template).get(outboxForwarderHandler)!;
    expect(forwarder.Properties.Environment.Variables.EVENT_BUS_NAME).toBeDefined();
    expect(policyOf(template, forwarder)).toContain('events:PutEvents');
    expect(policyOf(template, forwarder)).toContain('dynamodb:GetRecords');
    expect(policyOf(template, forwarder)).not.toContain('dynamodb:PutItem');
  });
});

describe('alarms stack', () => {
  it('alarms on every parked operation, dead-letter queue, sweeper restart and failed or timed-out workflow, each notifying the alarm topic', () => {
    const template = production.templates.alarms;
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Resource[];
    const byName = new Map(alarms.map((alarm) => [alarm.Properties.AlarmName as string, alarm.Properties]));
    for (const alarm of byName.values()) {
      expect(alarm.AlarmActions).toEqual([expect.objectContaining({ Ref: expect.any(String) })]);
      expect(alarm.Threshold).toBe(1);
      expect(alarm.TreatMissingData).toBe('notBreaching');
    }
    for (const operation of parkableOperations) {
      for (const status of parkedStatuses) {
        expect(byName.get(`payments-production-parked-${operation}-${status}`), `${operation} ${status}`).toMatchObject({
          Namespace: 'Payments', MetricName: 'OperationParked', Statistic: 'Sum',
          Dimensions: expect.arrayContaining([{ Name: 'operation', Value: operation }, { Name: 'status', Value: status }, { Name: 'service', Value: 'payments' }]),
        });
      }
    }
    for (const operation of sweptOperations) {
      expect(byName.get(`payments-production-sweeper-restarted-${operation}`), operation).toMatchObject({
        Namespace: 'Payments', MetricName: 'SweeperRestarted',
        Dimensions: expect.arrayContaining([{ Name: 'operation', Value: operation }, { Name: 'service', Value: 'payments' }]),
      });
    }
    const queues = [...eventRules.map((rule) => `payments-production-${rule.name}-dlq`), 'payments-production-mailFeedback-dlq', 'payments-production-outbox-undelivered'];
    const queueAlarms = [...byName.values()].filter((alarm) => alarm.Namespace === 'AWS/SQS');
    expect(queueAlarms.map((alarm) => alarm.Dimensions[0].Value).sort()).toEqual(queues.sort());
    for (const alarm of queueAlarms) expect(alarm).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Statistic: 'Maximum' });
    // Every dead-letter queue the events stack made is watched.
    const deadLetterQueues = (Object.values(production.templates.events.findResources('AWS::SQS::Queue')) as Resource[])
      .map((queue) => queue.Properties.QueueName as string).filter((name) => name.endsWith('-dlq') || name.endsWith('-undelivered'));
    expect(deadLetterQueues.sort()).toEqual(queues.sort());
    for (const workflow of Object.values(workflows)) {
      for (const metric of ['ExecutionsFailed', 'ExecutionsTimedOut']) {
        const alarm = [...byName.values()].find((candidate) => candidate.MetricName === metric && JSON.stringify(candidate.Dimensions).includes(`:stateMachine:payments-production-${workflow.name}"`));
        expect(alarm, `${workflow.name} ${metric}`).toMatchObject({ Namespace: 'AWS/States', Statistic: 'Sum' });
      }
    }
    template.hasResourceProperties('AWS::SNS::Topic', { TopicName: 'payments-production-alarms' });
    // The one alarm nothing emits for: `admin smoke --stage` sets it to ALARM to test the notifications.
    expect(byName.get('payments-production-notification-test')).toMatchObject({ Namespace: 'Payments/Smoke', MetricName: 'NotificationTest' });
  });
});

/**
 * What synthesis alone cannot show: a template that deploys and then does not work, or stops the
 * next deploy. Each test here was written against a defect a read of the templates found (issue 24).
 */
describe('deploy day', () => {
  /** Every `Fn::ImportValue` name in a template, wherever it sits. */
  const importsOf = (template: unknown): string[] => {
    const found: string[] = [];
    JSON.stringify(template, (_key, value: unknown) => {
      const imported = (value as { 'Fn::ImportValue'?: unknown } | null)?.['Fn::ImportValue'];
      if (typeof imported === 'string') found.push(imported);
      return value;
    });
    return found;
  };
  /**
   * The property that names a resource in its account and region, for the types the stacks make with a
   * name (a Stage's or an inline Policy's name is its parent's business, not the account's).
   */
  const accountNames: Record<string, string> = {
    'AWS::SES::EmailIdentity': 'EmailIdentity', 'AWS::SES::ConfigurationSet': 'Name', 'AWS::DynamoDB::Table': 'TableName',
    'AWS::Logs::LogGroup': 'LogGroupName', 'AWS::SQS::Queue': 'QueueName', 'AWS::SNS::Topic': 'TopicName',
    'AWS::StepFunctions::StateMachine': 'StateMachineName', 'AWS::CloudWatch::Alarm': 'AlarmName', 'AWS::Events::EventBus': 'Name',
    'AWS::Events::Rule': 'Name', 'AWS::SecretsManager::Secret': 'Name', 'AWS::Scheduler::Schedule': 'Name', 'AWS::Lambda::Function': 'FunctionName',
    'AWS::IAM::Role': 'RoleName', 'AWS::WAFv2::WebACL': 'Name',
  };
  const namesResource = (type: string, property: string) => accountNames[type] === property;
  const exportsOf = (files: Map<string, CfnTemplate>) => new Set([...files.values()].flatMap((template) => Object.values(template.Outputs ?? {}).flatMap((output) => (output.Export ? [output.Export.Name] : []))));

  it("lets CloudWatch publish this account's alarms to the alarm topic (a topic policy replaces SNS's default one)", () => {
    const policies = Object.values(production.templates.alarms.findResources('AWS::SNS::TopicPolicy')) as Resource[];
    const statements = policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as Record<string, any>[]);
    const publish = statements.filter((statement) => statement.Effect === 'Allow'
      && JSON.stringify(statement.Principal) === JSON.stringify({ Service: 'cloudwatch.amazonaws.com' })
      && [statement.Action].flat().includes('sns:Publish'));
    expect(publish, JSON.stringify(statements)).toHaveLength(1);
    // Only this account's alarms: the confused-deputy guard.
    const condition = publish[0]!.Condition as Record<string, Record<string, unknown>>;
    expect(Object.keys(condition).sort()).toEqual(['ArnLike', 'StringEquals']);
    expect(JSON.stringify(condition.ArnLike!['aws:SourceArn'])).toContain(`:cloudwatch:${deployContext.region}:${deployContext.account}:alarm:*"`);
    expect(condition.StringEquals).toEqual({ 'aws:SourceAccount': deployContext.account });
  });

  it('alarms on Payments metrics only as the deployed functions emit them: the same dimension set, never a metric only the local stack emits', () => {
    // What the code emits (functions/platform/metrics.ts count() takes exactly these; Powertools adds `service`) and where.
    const emitted: Record<string, { dimensions: readonly string[]; inAws: boolean }> = Object.fromEntries(Object.entries(metricDimensions)
      .map(([name, dimensions]) => [name, { dimensions, inAws: !(localOnlyMetrics as readonly string[]).includes(name) }]));
    expect(emitted.EventDeadLettered?.inAws).toBe(false);
    const alarms = (Object.values(production.templates.alarms.findResources('AWS::CloudWatch::Alarm')) as Resource[]).map((alarm) => alarm.Properties);
    const ours = alarms.filter((alarm) => alarm.Namespace === 'Payments');
    expect(ours.length).toBeGreaterThan(0);
    for (const alarm of ours) {
      const metric = emitted[alarm.MetricName];
      expect(metric, `${alarm.AlarmName} watches ${alarm.MetricName}, which nothing emits`).toBeDefined();
      expect(metric!.inAws, `${alarm.AlarmName}: ${alarm.MetricName} is emitted only by the local stack`).toBe(true);
      const names = (alarm.Dimensions as { Name: string }[]).map((dimension) => dimension.Name).sort();
      expect(names, `${alarm.AlarmName}: CloudWatch matches a metric by its whole dimension set`).toEqual(['service', ...metric!.dimensions].sort());
    }
    // A restart of each kind the sweeper restarts reaches someone.
    const swept = ours.filter((alarm) => alarm.MetricName === 'SweeperRestarted');
    expect(swept.map((alarm) => alarm.Dimensions.find((dimension: { Name: string }) => dimension.Name === 'operation').Value).sort()).toEqual([...sweptOperations].sort());
  });

  it("gives every function that can build a link the stage's public address: none falls back to http://127.0.0.1:3000", () => {
    let builders = 0;
    for (const template of [production.templates.api, production.templates.events, production.templates.workflows]) {
      for (const [entry, fn] of functionsByEntry(template)) {
        // functions/platform/config.ts publicBaseUrl(): tree-shaken away from every bundle that never builds a link.
        if (!bundleCode(bundleOf(entry)).includes('http://127.0.0.1:')) continue;
        builders += 1;
        expect(fn.Properties.Environment.Variables.PUBLIC_BASE_URL, `${entry} builds links`).toBeDefined();
      }
    }
    expect(builders).toBeGreaterThan(0);
  });

  it('lets the three stages share one account and region: no two of them name a resource alike', () => {
    const seen = new Map<string, string>();
    for (const [stage, synthesized] of Object.entries({ simulated, sandbox, production })) {
      for (const [file, template] of synthesized.files) {
        for (const [id, resource] of Object.entries(template.Resources ?? {})) {
          for (const [property, value] of Object.entries(resource.Properties ?? {})) {
            if (!namesResource(resource.Type, property) || typeof value !== 'string') continue;
            const key = `${resource.Type} ${value}`;
            const other = seen.get(key);
            if (other && !other.startsWith(`${stage}:`)) throw new Error(`${key} is named by ${other} and by ${stage}:${file}:${id}`);
            seen.set(key, `${stage}:${file}:${id}`);
          }
        }
      }
    }
  });

  it('retains nothing with a fixed name outside the data stack, so a deleted stack can be created again', () => {
    for (const synthesized of [simulated, sandbox, production]) {
      for (const [file, template] of synthesized.files) {
        if (file.includes('-data.')) continue; // the data is retained by design, and re-attached, not re-created
        for (const [id, resource] of Object.entries(template.Resources ?? {})) {
          if (resource.DeletionPolicy !== 'Retain') continue;
          for (const [property, value] of Object.entries(resource.Properties ?? {})) {
            if (namesResource(resource.Type, property)) expect(typeof value, `${file}: ${id} is retained under the fixed ${property} ${JSON.stringify(value)}`).not.toBe('string');
          }
        }
      }
    }
  });

  it('keeps every export another stack imports when -c publicBaseUrl is set on a deployed stage', () => {
    const imported = new Set([...production.files.values()].flatMap(importsOf));
    expect(imported.size).toBeGreaterThan(0);
    // With a domain of the deployer's in front of CloudFront, as docs/deployment.md describes (also checked below).
    const withPublicUrl = synthesize('production', { ...deployContext, publicBaseUrl: 'https://pay.example.com', ...customDomain });
    const exported = exportsOf(withPublicUrl.files);
    // CloudFormation updates the exporting stack first and refuses to drop an export still imported.
    for (const name of imported) expect(exported, `${name} would be deleted while imported`).toContain(name);
    // And the mailer's links use the address given.
    const mailer = functionsByEntry(withPublicUrl.templates.events).get('functions/events/notificationMailer.ts')!;
    expect(mailer.Properties.Environment.Variables.PUBLIC_BASE_URL).toBe('https://pay.example.com');

    // The custom domain: TLS 1.2 and SNI required of viewers, so nothing about TLS is acknowledged, and the validators are still clean.
    const config = (Object.values(withPublicUrl.apiParent.findResources('AWS::CloudFront::Distribution')) as Resource[])[0]!.Properties.DistributionConfig;
    expect(config.Aliases).toEqual([customDomain.edgeDomain]);
    expect(config.ViewerCertificate).toEqual({ AcmCertificateArn: customDomain.edgeCertificateArn, MinimumProtocolVersion: 'TLSv1.2_2021', SslSupportMethod: 'sni-only' });
    expect(withPublicUrl.validationReport.pluginReports.flatMap((report) => report.violations)).toEqual([]);
    expect(withPublicUrl.errors).toEqual([]);
  }, 300_000);
});

describe('edge (CloudFront and AWS WAF on sandbox and production)', () => {
  const edgeOf = (synthesized: Synthesized) => Template.fromStack(synthesized.stacks.edge!);

  it('keeps simulated the bare HTTP API, with no edge and no origin check', () => {
    expect(simulated.stacks.edge).toBeUndefined();
    simulated.templates.api.resourceCountIs('AWS::CloudFront::Distribution', 0);
    for (const fn of functionsByEntry(simulated.templates.api).values()) expect(fn.Properties.Environment.Variables.ORIGIN_SECRET_ARN).toBeUndefined();
  });

  it('puts the web ACL in us-east-1, scoped to CloudFront, with the rate, body-size and managed rules', () => {
    for (const synthesized of [sandbox, production]) {
      const edge = synthesized.stacks.edge!;
      expect(edge.region).toBe('us-east-1');
      expect(edge.account).toBe(deployContext.account);
      const acls = Object.values(edgeOf(synthesized).findResources('AWS::WAFv2::WebACL')) as Resource[];
      expect(acls).toHaveLength(1);
      const acl = acls[0]!.Properties;
      expect(acl).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
      const rules = new Map((acl.Rules as Record<string, any>[]).map((rule) => [rule.Name as string, rule]));
      expect([...rules.keys()]).toEqual(['open-routes-per-client', 'every-route-per-client', 'body-size', 'aws-known-bad-inputs', 'aws-common']);

      // Per client address; the open routes (no key, so no organization bucket) tighter, each named from the route table.
      const open = rules.get('open-routes-per-client')!;
      expect(open.Statement.RateBasedStatement).toMatchObject({ AggregateKeyType: 'IP', EvaluationWindowSec: 60, Limit: 300 });
      const openPaths = (open.Statement.RateBasedStatement.ScopeDownStatement.OrStatement.Statements as Record<string, any>[]).map((statement) => statement.ByteMatchStatement.SearchString).sort();
      expect(openPaths).toEqual([...new Set(routes.filter((row) => row.auth === 'open').map((row) => row.path))].sort());
      expect(openPaths).toEqual(expect.arrayContaining(['/health', '/invitations/accept', '/notifications/unsubscribe', '/notifications/verify']));
      expect(rules.get('every-route-per-client')!.Statement.RateBasedStatement).toEqual({ AggregateKeyType: 'IP', EvaluationWindowSec: 60, Limit: 6000 });
      for (const name of ['open-routes-per-client', 'every-route-per-client']) {
        expect(rules.get(name)!.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 429, CustomResponseBodyKey: 'rate_limited' });
      }
      // Answered in the contract's error body.
      expect(JSON.parse(acl.CustomResponseBodies.rate_limited.Content)).toMatchObject({ error: 'rate_limited' });
      expect(JSON.parse(acl.CustomResponseBodies.payload_too_large.Content)).toMatchObject({ error: 'payload_too_large' });

      const body = rules.get('body-size')!;
      expect(body.Action.Block.CustomResponse).toMatchObject({ ResponseCode: 413, CustomResponseBodyKey: 'payload_too_large' });
      expect(body.Statement.AndStatement.Statements).toEqual([
        { SizeConstraintStatement: { FieldToMatch: { Body: { OversizeHandling: 'MATCH' } }, ComparisonOperator: 'GT', Size: 16384, TextTransformations: [{ Priority: 0, Type: 'NONE' }] } },
        { NotStatement: { Statement: { ByteMatchStatement: expect.objectContaining({ SearchString: '/batches', PositionalConstraint: 'EXACTLY' }) } } },
      ]);

      expect(rules.get('aws-known-bad-inputs')).toMatchObject({ OverrideAction: { None: {} }, Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesKnownBadInputsRuleSet' } } });
      expect(rules.get('aws-common')).toMatchObject({
        OverrideAction: { None: {} },
        Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesCommonRuleSet', RuleActionOverrides: [{ Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } }] } },
      });

      // Logged, with the key redacted, to a group WAF accepts (aws-waf-logs-…).
      edgeOf(synthesized).hasResourceProperties('AWS::WAFv2::LoggingConfiguration', {
        RedactedFields: [{ SingleHeader: { Name: 'authorization' } }],
        LogDestinationConfigs: [Match.anyValue()],
      });
      expect(JSON.stringify(edgeOf(synthesized).findResources('AWS::Logs::LogGroup'))).toContain(`aws-waf-logs-payments-${synthesized.stacks.settings.environment}-`);
    }
  });

  it('serves the API through CloudFront with that web ACL, caching nothing, adding the secret origin header', () => {
    for (const synthesized of [sandbox, production]) {
      const parent = synthesized.apiParent;
      const distributions = Object.values(parent.findResources('AWS::CloudFront::Distribution')) as Resource[];
      expect(distributions).toHaveLength(1);
      const config = distributions[0]!.Properties.DistributionConfig;
      // The web ACL's ARN, read in this region from what the us-east-1 stack wrote (a cross-region reference).
      expect(JSON.stringify(config.WebACLId)).toMatch(/ExportsReader/);
      expect(config.DefaultCacheBehavior).toMatchObject({
        ViewerProtocolPolicy: 'https-only',
        AllowedMethods: ['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE'],
        CachePolicyId: '4135ea2d-6df8-44a3-9df3-4b5a84be39ad', // Managed-CachingDisabled
        OriginRequestPolicyId: 'b689b0a8-53d0-40ab-baf2-68738e2966ac', // Managed-AllViewerExceptHostHeader
      });
      expect(config.Origins).toHaveLength(1);
      const origin = config.Origins[0];
      expect(JSON.stringify(origin.DomainName)).toMatch(/Api.*execute-api/);
      expect(origin.CustomOriginConfig).toMatchObject({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
      // The header's value is a dynamic reference to the secret: resolved at deploy time, in no template.
      expect(origin.OriginCustomHeaders).toHaveLength(1);
      expect(origin.OriginCustomHeaders[0].HeaderName).toBe('x-origin-verify');
      const value = JSON.stringify(origin.OriginCustomHeaders[0].HeaderValue);
      expect(value).toContain('{{resolve:secretsmanager:');
      expect(value).toMatch(/OriginSecret/);
      parent.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: Match.objectLike({ PasswordLength: 48 }) });
      expect(Object.keys(parent.toJSON().Outputs)).toEqual(expect.arrayContaining(['ApiUrl', 'PublicUrl']));
    }
  });

  it('gives every endpoint function the origin secret to check, so the execute-api address is no way around the edge', () => {
    for (const synthesized of [sandbox, production]) {
      const api = synthesized.templates.api;
      let endpoints = 0;
      for (const [entry, fn] of functionsByEntry(api)) {
        if (entry === unmatchedHandler) continue; // answers 404/405 and reads nothing
        endpoints += 1;
        expect(JSON.stringify(fn.Properties.Environment.Variables.ORIGIN_SECRET_ARN), entry).toMatch(/OriginSecret/);
        const reads = statementsOf(api, fn).filter((statement) => statement.actions.includes('secretsmanager:GetSecretValue')).flatMap((statement) => statement.resources);
        expect(reads.some((resource) => resource.includes('OriginSecret')), entry).toBe(true);
      }
      expect(endpoints).toBe(new Set(routes.map((row) => row.handler)).size);
    }
  });

  it('refuses to synthesize a stage with an edge without a region to refer across', () => {
    expect(() => buildPaymentsApp(new App({ context: { environment: 'production', account: deployContext.account, senderIdentity: 'payments.example.com' } }), bundles)).toThrow(/-c region=/);
  });
});

describe('stack sizes', () => {
  it(`keeps every stack and nested stack of every stage within ${stackResourceBudget} resources (CloudFormation refuses a stack of more than 500)`, () => {
    const byStage: Record<string, Synthesized> = { simulated, sandbox, production };
    expect(Object.keys(byStage).sort()).toEqual([...serviceEnvironments].sort());
    for (const environment of serviceEnvironments) {
      const counts = byStage[environment]!.resourceCounts;
      // The five stacks (six with the edge) and one nested stack per API area, every one of them counted.
      const nested = [...counts.keys()].filter((file) => file.endsWith('.nested.template.json'));
      expect(nested.length, environment).toBe(byStage[environment]!.stacks.api.areas.size);
      expect(counts.size, environment).toBe((environment === 'simulated' ? 5 : 6) + nested.length);
      for (const [file, count] of counts) {
        expect(count, `${environment}: ${file} holds ${count} resources: split it before CloudFormation refuses it (an API area: give some of its features an area of their own, lib/aws/apiAreas.ts)`)
          .toBeLessThanOrEqual(stackResourceBudget);
      }
    }
  });
});

describe('policy validation (cdk-nag AwsSolutions, Control Tower proactive controls through cfn-guard)', () => {
  it('reports nothing unacknowledged on any stage', () => {
    for (const synthesized of [simulated, sandbox, production]) {
      // cfn-guard reports even when clean; cdk-nag only when it found something.
      expect(synthesized.validationReport.pluginReports.map((report) => report.pluginName)).toContain('cdk-validator-cfnguard');
      const violations = synthesized.validationReport.pluginReports.flatMap((report) => report.violations);
      expect(violations).toEqual([]);
      // Error annotations of any stack, read from the assembly already made (a fresh Annotations
      // check would synthesize, and validate, every stack again).
      expect(synthesized.errors).toEqual([]);
    }
  });
});
