import { CfnOutput, Stack, Token, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ConfigurationSet, ConfigurationSetEventDestination, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { routes, type RouteDefinition } from '#contract/routes.ts';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { apiAreaOf, apiAreas, type ApiArea } from './apiAreas.ts';
import { ApiAreaStack } from './apiAreaStack.ts';
import { mailConfigurationSetName } from './environment.ts';
import { entryName, unmatchedHandler } from './handlers.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';

/** `treasury` → `TreasuryEndpoints`: the construct id of an area's nested stack (and so of its template file). */
export function areaStackId(area: ApiArea): string {
  return `${area.charAt(0).toUpperCase()}${area.slice(1)}Endpoints`;
}

export interface ApiStackProps extends StackProps {
  context: FunctionContext;
  bundleOf: (entry: string) => LambdaBundle;
}

/**
 * The HTTP API: one route per row of the route table (functions/contract/routes.ts) and one Lambda per
 * distinct handler module, so every unbuilt endpoint shares the one notImplemented function.
 *
 * This stack holds what the API shares: the HTTP API, its stage and access logs, the unmatched-route
 * function behind `$default`, the SES configuration set. The endpoint functions and their routes sit in one
 * nested stack per area of the route table (lib/aws/apiAreas.ts, lib/aws/apiAreaStack.ts): a stack
 * holds at most 500 resources, and one of all the endpoints would stop growing near 70
 * (docs/decisions/098).
 *
 * State machines are named, not referenced (lib/aws/environment.ts): the API grants on their exact
 * ARNs without importing anything from the workflow stack, so either can be updated alone.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  /** Every endpoint function by handler module, whichever nested stack it sits in. */
  readonly functions = new Map<string, ServiceFunction>();
  /** The nested stack of each area that has routes. */
  readonly areas = new Map<ApiArea, ApiAreaStack>();
  /** Base of links in e-mails: the stage's public address, unless `-c publicBaseUrl=...` names another. */
  readonly publicBaseUrl: string;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { settings } = props.context;

    // Requests that match no row: its function is part of the API itself, not of an area.
    const unmatched = new ServiceFunction(this, entryName(unmatchedHandler), {
      context: props.context,
      bundle: props.bundleOf(unmatchedHandler),
      table: 'none',
    });
    this.functions.set(unmatchedHandler, unmatched);
    this.api = new HttpApi(this, 'Api', {
      apiName: settings.prefix,
      description: `Cross-border payments API (${settings.environment})`,
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration(`${entryName(unmatchedHandler)}Integration`, unmatched.function),
    });

    Validations.of(this.api).acknowledge({
      id: 'cdk-validator-cfnguard::api_gw_v2_authorization_type_configured_check',
      reason: 'Only the $default route sits here: it answers requests that match no endpoint with 404/405 and reads nothing.',
    }, {
      id: 'AwsSolutions-APIG4',
      reason: 'Only the $default route sits here: it answers requests that match no endpoint with 404/405 and reads nothing.',
    });
    this.publicBaseUrl = this.publicAddress(this.api.apiEndpoint, this.api.apiEndpoint);

    // Each handler module's rows, grouped by the area of the module (its first row's).
    const rowsByHandler = new Map<string, RouteDefinition[]>();
    for (const row of routes) rowsByHandler.set(row.handler, [...(rowsByHandler.get(row.handler) ?? []), row]);
    const rowsByArea = new Map<ApiArea, Map<string, RouteDefinition[]>>();
    for (const [handler, rows] of rowsByHandler) {
      const area = apiAreaOf(rows);
      rowsByArea.set(area, (rowsByArea.get(area) ?? new Map<string, RouteDefinition[]>()).set(handler, rows));
    }
    for (const area of apiAreas) {
      const areaRows = rowsByArea.get(area);
      if (!areaRows) continue;
      const nested = new ApiAreaStack(this, areaStackId(area), {
        area,
        context: props.context,
        bundleOf: props.bundleOf,
        httpApi: this.api,
        rowsByHandler: areaRows,
        publicBaseUrl: this.publicBaseUrl,
        description: `Payments ${settings.environment}: ${area} endpoints of the HTTP API`,
      });
      this.areas.set(area, nested);
      for (const [handler, built] of nested.functions) this.functions.set(handler, built);
    }
    this.addMail(settings);

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
      if (child instanceof CfnPermission && child.principal === 'apigateway.amazonaws.com') child.sourceAccount ??= Stack.of(child).account;
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
   * The base of links in e-mails: `-c publicBaseUrl=...` when given, else the stage's own address. The
   * events stack's mailer imports the address (the attribute it is made of) from this stack; the export stays whether or not the
   * context is given, since CloudFormation updates this stack first and refuses to drop an export
   * another stack still imports (setting the context on a deployed stage would stop the deploy).
   */
  private publicAddress(exportedAttribute: string, ownAddress: string): string {
    this.exportValue(exportedAttribute);
    const given: unknown = this.node.tryGetContext('publicBaseUrl');
    if (given === undefined) return ownAddress;
    if (typeof given !== 'string' || !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(given)) {
      throw new Error(`CDK context "publicBaseUrl" must be an absolute address such as https://pay.example.com; got ${JSON.stringify(given)}`);
    }
    return given;
  }

  /**
   * Invitations and verification links are e-mailed through Amazon SES v2 (functions/providers/mail.ts;
   * docs/decisions/051, 094) as the sender identity (`-c senderIdentity=`, a domain or an address).
   * The identity is not made here: SES names it by the bare domain or address, once per account and
   * region, so a second stage in the account could not create it again (docs/decisions/105); the
   * deployer makes it once (docs/deployment.md). This stack makes the stage's configuration set, which
   * every message names (MAIL_CONFIGURATION_SET): its bounces and complaints go to the default event
   * bus, where this stage's mail-feedback rule takes them. Only the handlers whose row `sendsMail` may
   * send, and only as that identity through that set (no wildcard; lib/aws/environment.ts
   * grantMailSending, given in their area's stack). Links point at the stage's public address unless
   * `-c publicBaseUrl=...` names another. A `simulated` stack without an identity sends no mail:
   * every function has MAIL_TRANSPORT `none`, invitations answer emailDelivered false.
   */
  private addMail(settings: FunctionContext['settings']): void {
    if (settings.senderIdentity) {
      const configurationSet = new ConfigurationSet(this, 'MailConfigurationSet', { configurationSetName: mailConfigurationSetName(settings) });
      new ConfigurationSetEventDestination(this, 'MailFeedback', {
        configurationSet,
        destination: EventDestination.eventBus(EventBus.fromEventBusName(this, 'DefaultBus', 'default')),
        events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
      });
    }
  }
}
