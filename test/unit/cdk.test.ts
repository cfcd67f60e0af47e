import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildPaymentsApp, type PaymentsStacks } from '../../lib/aws/app.ts';
import { sweeperHandler } from '../../lib/aws/sweeperSchedule.ts';
import { lambdaEntries, outboxForwarderHandler, unmatchedHandler } from '../../lib/aws/handlers.ts';
import { bundleLambdas, type LambdaBundle } from '../../lib/build/lambdaBundles.ts';
import { getHealth, inviteMember, notImplementedHandler, resendInvitation, routeKey, routes } from '#wiring/routes.ts';
import { workflows } from '#wiring/workflows.ts';
import { eventRules } from '#wiring/events.ts';
import { table as tableDefinition } from '#wiring/table.ts';

/**
 * The AWS wiring, synthesized in process: the stacks are built from the same wiring tables as
 * the local runtime, and cdk-nag (a policy-validation plugin) runs on every synth. Bundling runs
 * once for the file; the stages reuse the bundles.
 */
let bundleRoot: string;
let bundles: LambdaBundle[];

interface Synthesized {
  stacks: PaymentsStacks;
  templates: Record<'data' | 'workflows' | 'api' | 'events', Template>;
  validationReport: { pluginReports: { pluginName: string; violations: unknown[] }[] };
}

function synthesize(environment: string): Synthesized {
  const app = new App({ context: { environment } });
  const stacks = buildPaymentsApp(app, bundles);
  // Throws, with the report, if any validation plugin (cdk-nag) found an unacknowledged error.
  const assembly = app.synth();
  return {
    stacks,
    templates: {
      data: Template.fromStack(stacks.data),
      workflows: Template.fromStack(stacks.workflows),
      api: Template.fromStack(stacks.api),
      events: Template.fromStack(stacks.events),
    },
    validationReport: JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')),
  };
}

let simulated: Synthesized;
let production: Synthesized;

beforeAll(() => {
  bundleRoot = mkdtempSync(join(tmpdir(), 'payments-bundles-'));
  bundles = bundleLambdas(lambdaEntries(), { outRoot: bundleRoot });
  simulated = synthesize('simulated');
  production = synthesize('production');
  // Bundling every Lambda and synthesizing two stages takes tens of seconds on two busy cores.
}, 240_000);

afterAll(() => {
  if (bundleRoot) rmSync(bundleRoot, { recursive: true, force: true });
});

type Resource = { Properties: Record<string, any>; DeletionPolicy?: string };

function functionsByEntry(template: Template): Map<string, Resource> {
  const functions = Object.values(template.findResources('AWS::Lambda::Function')) as Resource[];
  // Descriptions are `<handler module> (<environment>)`.
  return new Map(functions.map((fn) => [String(fn.Properties.Description).replace(/ \(\w+\)$/, ''), fn]));
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
      expect(bundle.bytes).toBeGreaterThan(0);
      expect(readFileSync(join(bundle.outdir, 'index.mjs'), 'utf8')).toMatch(/^import\{createRequire as|^import \{ createRequire as/);
    }
  });

  it('refuses an entry whose module does not exist, naming it', () => {
    expect(() => bundleLambdas(['functions/api/doesNotExist.ts'], { outRoot: join(bundleRoot, 'missing') })).toThrow(/doesNotExist\.ts/);
  });
});

describe('stage', () => {
  it('refuses an environment outside simulated, sandbox and production', () => {
    expect(() => buildPaymentsApp(new App({ context: { environment: 'prod' } }), bundles)).toThrow(/simulated, sandbox, production/);
  });

  it('gives every function the house accounts of the context, checked at synth; none without it', () => {
    const accounts = [{ currency: 'USD', accountName: 'Payments Ltd', accountNumber: '8000012345', bic: 'CHASUS33' }];
    const app = new App({ context: { environment: 'sandbox', houseAccounts: JSON.stringify(accounts) } });
    const stacks = buildPaymentsApp(app, bundles);
    const functions = Object.values(Template.fromStack(stacks.api).findResources('AWS::Lambda::Function')) as Resource[];
    const serviceFunctions = functions.filter((fn) => fn.Properties.Environment?.Variables?.TABLE_NAME);
    expect(serviceFunctions.length).toBeGreaterThan(10);
    for (const fn of serviceFunctions) expect(JSON.parse(fn.Properties.Environment.Variables.HOUSE_ACCOUNTS)).toEqual(accounts);
    const without = Object.values(simulated.templates.api.findResources('AWS::Lambda::Function')) as Resource[];
    expect(without.some((fn) => fn.Properties.Environment?.Variables?.HOUSE_ACCOUNTS)).toBe(false);

    const twice = JSON.stringify([...accounts, ...accounts]);
    expect(() => buildPaymentsApp(new App({ context: { environment: 'sandbox', houseAccounts: twice } }), bundles)).toThrow(/houseAccounts.*configured twice/);
    expect(() => buildPaymentsApp(new App({ context: { environment: 'sandbox', houseAccounts: '[{' } }), bundles)).toThrow(/JSON array/);
  });

  it('names every stack and state machine after the stage', () => {
    expect(production.stacks.api.stackName).toBe('payments-production-api');
    production.templates.workflows.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      StateMachineName: Match.stringLikeRegexp('^payments-production-'),
    });
  });
});

describe('data stack', () => {
  it('builds the single table from lib/wiring/table.ts', () => {
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
        Projection: { ProjectionType: 'ALL' },
      })),
      StreamSpecification: { StreamViewType: 'NEW_IMAGE' },
      TimeToLiveSpecification: { AttributeName: 'ttl', Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('protects the table and the cursor key outside simulated, and not in simulated', () => {
    production.templates.data.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({ DeletionProtectionEnabled: true }),
    });
    production.templates.data.hasResource('AWS::SecretsManager::Secret', { DeletionPolicy: 'Retain' });
    simulated.templates.data.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ DeletionProtectionEnabled: false }),
    });
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
          'TABLE_NAME', 'SERVICE_ENVIRONMENT', 'WORKFLOW_ARN_PREFIX', 'CURSOR_SECRET_ARN', 'NODE_OPTIONS',
          'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED',
        ]));
        expect(fn.Properties.Environment.Variables.SERVICE_ENVIRONMENT).toBe('simulated');
        expect(JSON.stringify(fn.Properties.Environment.Variables.WORKFLOW_ARN_PREFIX)).toContain(':stateMachine:payments-simulated-');
      }
    }
    for (const fn of functionsByEntry(simulated.templates.api).values()) expect(fn.Properties.Timeout).toBe(10);
  });

  it('grants the health probe DescribeStateMachine, and the 501 function no workflow start', () => {
    const api = simulated.templates.api;
    const functions = functionsByEntry(api);
    expect(policyOf(api, functions.get(getHealth.handler)!)).toContain('states:DescribeStateMachine');
    expect(policyOf(api, functions.get(notImplementedHandler)!)).not.toContain('states:StartExecution');
    // Every keyed request charges its rate bucket, even one answered 501.
    expect(policyOf(api, functions.get(notImplementedHandler)!)).toContain('dynamodb:UpdateItem');
    expect(policyOf(api, functions.get(unmatchedHandler)!)).not.toContain('dynamodb:');
  });

  it('lets only the two invitation handlers send mail, through SES, with the accept link pointing at the API', () => {
    for (const stage of [simulated, production]) {
      const api = stage.templates.api;
      for (const [entry, fn] of functionsByEntry(api)) {
        const mails = entry === inviteMember.handler || entry === resendInvitation.handler;
        expect(policyOf(api, fn).includes('ses:SendEmail'), entry).toBe(mails);
        expect(fn.Properties.Environment.Variables.MAIL_TRANSPORT, entry).toBe(mails ? 'ses' : undefined);
        if (mails) expect(JSON.stringify(fn.Properties.Environment.Variables.PUBLIC_BASE_URL)).toContain('ApiEndpoint');
      }
    }
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

  it('subscribes the outbox forwarder to new outbox items only, with retries and an on-failure queue', () => {
    const template = simulated.templates.events;
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FilterCriteria: { Filters: [{ Pattern: JSON.stringify({ eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['outboxEvent'] } } } }) }] },
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: Match.anyValue(),
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: Match.anyValue() } },
      StartingPosition: 'TRIM_HORIZON',
    });
    const forwarder = functionsByEntry(template).get(outboxForwarderHandler)!;
    expect(forwarder.Properties.Environment.Variables.EVENT_BUS_NAME).toBeDefined();
    expect(policyOf(template, forwarder)).toContain('events:PutEvents');
    expect(policyOf(template, forwarder)).toContain('dynamodb:GetRecords');
    expect(policyOf(template, forwarder)).not.toContain('dynamodb:PutItem');
  });
});

describe('cdk-nag', () => {
  it('reports nothing unacknowledged on any stage', () => {
    for (const synthesized of [simulated, production]) {
      const violations = synthesized.validationReport.pluginReports.flatMap((report) => report.violations);
      expect(violations).toEqual([]);
      for (const stack of Object.values(synthesized.stacks).filter((value) => typeof value === 'object' && 'templateOptions' in value)) {
        expect(Annotations.fromStack(stack as PaymentsStacks['data']).findError('*', Match.anyValue())).toEqual([]);
      }
    }
  });
});
