import { CfnOutput, Stack, Token, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ConfigurationSet, ConfigurationSetEventDestination, EmailIdentity, EmailSendingEvent, EventDestination, Identity } from 'aws-cdk-lib/aws-ses';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { getHealth, routeNeeds, routes, type RouteDefinition, type TableAccess } from '#contract/routes.ts';
import { workflows } from '#contract/workflows.ts';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { grantMailSending, mailConfigurationSetName, stateMachineArn } from './environment.ts';
import { entryName, unmatchedHandler } from './handlers.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';

export interface ApiStackProps extends StackProps {
  context: FunctionContext;
  bundleOf: (entry: string) => LambdaBundle;
}

/**
 * The HTTP API: one route per row of the route table (functions/contract/routes.ts) and one Lambda per
 * distinct handler module, so every unbuilt endpoint shares the one notImplemented function.
 *
 * State machines are named, not referenced (lib/aws/environment.ts): this stack grants on their
 * exact ARNs without importing anything from the workflow stack, so either can be updated alone.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly functions = new Map<string, ServiceFunction>();
  /** Base of links in e-mails: this API, unless `-c publicBaseUrl=...` names another address. */
  readonly publicBaseUrl: string;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { settings } = props.context;
    const stateMachineArns = Object.values(workflows).map((workflow) => stateMachineArn(this, settings, workflow.name));

    const rowsByHandler = new Map<string, RouteDefinition[]>();
    for (const row of routes) rowsByHandler.set(row.handler, [...(rowsByHandler.get(row.handler) ?? []), row]);

    // Rows sharing a module share a function: it gets the union of what they need.
    const tableLevels: TableAccess[] = ['none', 'read', 'write'];
    const tableOf = (rows: RouteDefinition[]): TableAccess =>
      tableLevels[Math.max(0, ...rows.map((row) => tableLevels.indexOf(routeNeeds(row).table)))]!;

    const integrationFor = (handler: string, rows: RouteDefinition[]) => {
      const built = new ServiceFunction(this, entryName(handler), {
        context: props.context,
        bundle: props.bundleOf(handler),
        table: tableOf(rows),
      });
      this.functions.set(handler, built);
      // A function behind many routes gets one API-wide invoke permission instead of one per
      // route: the notImplemented function serves dozens of routes, and one statement per route
      // would outgrow Lambda's 20 KB resource-policy limit.
      return new HttpLambdaIntegration(`${entryName(handler)}Integration`, built.function, { scopePermissionToRoute: rows.length <= 1 });
    };

    this.api = new HttpApi(this, 'Api', {
      apiName: settings.prefix,
      description: `Cross-border payments API (${settings.environment})`,
      createDefaultStage: false,
      defaultIntegration: integrationFor(unmatchedHandler, []),
    });

    Validations.of(this.api).acknowledge({
      id: 'cdk-validator-cfnguard::api_gw_v2_authorization_type_configured_check',
      reason: 'Only the $default route sits here: it answers requests that match no endpoint with 404/405 and reads nothing.',
    }, {
      id: 'AwsSolutions-APIG4',
      reason: 'Only the $default route sits here: it answers requests that match no endpoint with 404/405 and reads nothing.',
    });

    const routeScope = new Construct(this, 'Routes');
    Validations.of(routeScope).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason: 'Authentication is the API key, checked inside each handler in the same DynamoDB transaction that charges the '
        + "caller's rate bucket (one round trip); open routes (/health, /capabilities, /openapi.json, invitations) take no "
        + 'credential by contract. An API Gateway authorizer would add a second lookup to every request.',
    });
    Validations.of(routeScope).acknowledge({
      id: 'cdk-validator-cfnguard::api_gw_v2_authorization_type_configured_check',
      reason: 'As for AwsSolutions-APIG4: the API key is checked inside each handler, in the transaction that charges its rate bucket.',
    });
    for (const [handler, rows] of rowsByHandler) {
      const integration = integrationFor(handler, rows);
      for (const row of rows) {
        new HttpRoute(routeScope, row.operationId, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(row.path, HttpMethod[row.method]),
          integration,
        });
      }
    }

    // Least privilege from the route table (routeNeeds): states:StartExecution on exactly the
    // workflows a row starts, the cursor key only where cursors are made or read.
    for (const [handler, rows] of rowsByHandler) {
      const built = this.functions.get(handler)!;
      const starts = [...new Set(rows.flatMap((row) => routeNeeds(row).starts))];
      if (starts.length > 0) {
        built.function.addToRolePolicy(new PolicyStatement({
          actions: ['states:StartExecution'],
          resources: starts.map((workflow) => stateMachineArn(this, settings, workflows[workflow].name)),
        }));
      }
      if (rows.some((row) => routeNeeds(row).cursors)) props.context.cursorSecret.grantRead(built.function);
      if (rows.some((row) => routeNeeds(row).sealsWebhookSecrets)) props.context.webhookSecretKey.grant(built.function, 'kms:GenerateDataKey');
    }
    this.functions.get(getHealth.handler)?.function.addToRolePolicy(
      // GET /health answers 503 when the workflow engine cannot be reached; describing the state machines is the probe.
      new PolicyStatement({ actions: ['states:DescribeStateMachine'], resources: stateMachineArns }),
    );
    this.publicBaseUrl = (this.node.tryGetContext('publicBaseUrl') as string | undefined) ?? this.api.apiEndpoint;
    this.addMail(settings, [...new Set(routes.filter((row) => row.sendsMail).map((row) => row.handler))]);

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: settings.logRetention, removalPolicy: settings.logRemovalPolicy });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: settings.apiThrottle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // HTTP API context variables only; no header is logged, so no key or Authorization value can leak.
        format: AccessLogFormat.custom(JSON.stringify({
          requestId: '$context.requestId',
          ip: '$context.identity.sourceIp',
          requestTime: '$context.requestTime',
          routeKey: '$context.routeKey',
          status: '$context.status',
          protocol: '$context.protocol',
          responseLength: '$context.responseLength',
          responseLatency: '$context.responseLatency',
          integrationLatency: '$context.integrationLatency',
          integrationError: '$context.integrationErrorMessage',
        })),
      },
    });

    // API Gateway may invoke the functions only on behalf of this account (the source ARN names the
    // API, this names its owner: the confused-deputy guard Control Tower's CT.LAMBDA.PR.2 asks for).
    for (const child of this.node.findAll()) {
      if (child instanceof CfnPermission && child.principal === 'apigateway.amazonaws.com') child.sourceAccount ??= this.account;
    }
    if (Token.isUnresolved(this.account)) {
      // Only an environment-agnostic synth (`npm run synth` with no account) gets here: the check
      // reads a literal account, which a deploy always has (-c account, docs/deployment.md).
      Validations.of(this).acknowledge({
        id: 'cdk-validator-cfnguard::lambda_function_public_access_prohibited_check',
        reason: 'No target account in this synth: the invoke permissions name the source ARN of the API, and their source account once synthesized for one.',
      });
    }

    new CfnOutput(this, 'ApiUrl', { value: stage.url });
  }

  /**
   * Invitations and verification links are e-mailed through Amazon SES v2 (functions/providers/mail.ts;
   * docs/decisions/051, 094). The sender identity (`-c senderIdentity=`, a domain or an address) is part
   * of the stack, with a configuration set as its default: every message carries it, and its bounces
   * and complaints go to the default event bus, where the events stack's mail-feedback rule takes them.
   * Only the handlers whose row `sendsMail` may send, and only as that identity through that set (no
   * wildcard; lib/aws/environment.ts grantMailSending). Links point at this API unless
   * `-c publicBaseUrl=...` names another address. A `simulated` stack without an identity sends no
   * mail: every function has MAIL_TRANSPORT `none`, invitations answer emailDelivered false.
   */
  private addMail(settings: FunctionContext['settings'], mailers: string[]): void {
    const identity = settings.senderIdentity;
    if (identity) {
      const configurationSet = new ConfigurationSet(this, 'MailConfigurationSet', { configurationSetName: mailConfigurationSetName(settings) });
      new ConfigurationSetEventDestination(this, 'MailFeedback', {
        configurationSet,
        destination: EventDestination.eventBus(EventBus.fromEventBusName(this, 'DefaultBus', 'default')),
        events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
      });
      new EmailIdentity(this, 'MailIdentity', {
        identity: identity.kind === 'domain' ? Identity.domain(identity.domain) : Identity.email(identity.address),
        configurationSet,
      });
    }
    for (const handler of mailers) {
      const mailer = this.functions.get(handler);
      if (mailer) grantMailSending(mailer.function, settings, this.publicBaseUrl);
    }
  }
}
