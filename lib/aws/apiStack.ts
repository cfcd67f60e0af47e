import { CfnOutput, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, HttpRoute, HttpRouteKey, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { getHealth, inviteMember, notImplementedHandler, resendInvitation, routes, type RouteDefinition } from '#wiring/routes.ts';
import { workflows } from '#wiring/workflows.ts';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { stateMachineArn } from './environment.ts';
import { entryName, unmatchedHandler } from './handlers.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';

export interface ApiStackProps extends StackProps {
  context: FunctionContext;
  bundleOf: (entry: string) => LambdaBundle;
}

/**
 * The HTTP API: one route per row of the route table (lib/wiring/routes.ts) and one Lambda per
 * distinct handler module, so every unbuilt endpoint shares the one notImplemented function.
 *
 * State machines are named, not referenced (lib/aws/environment.ts): this stack grants on their
 * exact ARNs without importing anything from the workflow stack, so either can be updated alone.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { settings } = props.context;
    const stateMachineArns = Object.values(workflows).map((workflow) => stateMachineArn(this, settings, workflow.name));

    const rowsByHandler = new Map<string, RouteDefinition[]>();
    for (const row of routes) rowsByHandler.set(row.handler, [...(rowsByHandler.get(row.handler) ?? []), row]);

    const integrationFor = (handler: string, routeCount: number) => {
      const built = new ServiceFunction(this, entryName(handler), {
        context: props.context,
        bundle: props.bundleOf(handler),
        tableAccess: handler !== unmatchedHandler,
      });
      this.functions.set(handler, built);
      // A function behind many routes gets one API-wide invoke permission instead of one per
      // route: the notImplemented function serves dozens of routes, and one statement per route
      // would outgrow Lambda's 20 KB resource-policy limit.
      return new HttpLambdaIntegration(`${entryName(handler)}Integration`, built.function, { scopePermissionToRoute: routeCount <= 1 });
    };

    this.api = new HttpApi(this, 'Api', {
      apiName: settings.prefix,
      description: `Cross-border payments API (${settings.environment})`,
      createDefaultStage: false,
      defaultIntegration: integrationFor(unmatchedHandler, 1),
    });

    Validations.of(this.api).acknowledge({
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
    for (const [handler, rows] of rowsByHandler) {
      const integration = integrationFor(handler, rows.length);
      for (const row of rows) {
        new HttpRoute(routeScope, row.operationId, {
          httpApi: this.api,
          routeKey: HttpRouteKey.with(row.path, HttpMethod[row.method]),
          integration,
        });
      }
    }

    // Workflows start only from state-changing requests: a read never starts one, and the
    // notImplemented function only answers 501.
    for (const [handler, rows] of rowsByHandler) {
      if (handler === notImplementedHandler || rows.every((row) => row.method === 'GET')) continue;
      this.functions.get(handler)?.function.addToRolePolicy(new PolicyStatement({ actions: ['states:StartExecution'], resources: stateMachineArns }));
    }
    this.functions.get(getHealth.handler)?.function.addToRolePolicy(
      // GET /health answers 503 when the workflow engine cannot be reached; describing the state machines is the probe.
      new PolicyStatement({ actions: ['states:DescribeStateMachine'], resources: stateMachineArns }),
    );
    // Invitations are e-mailed through Amazon SES v2 on every stage (functions/providers/mail.ts;
    // docs/decisions/051): only the two handlers that send one may send mail. The accept link points
    // at this API unless `-c publicBaseUrl=...` names another address; `-c mailFrom=...` is the sender
    // (a verified SES identity).
    const publicBaseUrl = this.node.tryGetContext('publicBaseUrl') as string | undefined;
    const mailFrom = this.node.tryGetContext('mailFrom') as string | undefined;
    const sesIdentities = Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' });
    for (const row of [inviteMember, resendInvitation]) {
      const mailer = this.functions.get(row.handler);
      if (!mailer) continue;
      mailer.function.addEnvironment('MAIL_TRANSPORT', 'ses');
      mailer.function.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl ?? this.api.apiEndpoint);
      if (mailFrom) mailer.function.addEnvironment('MAIL_FROM', mailFrom);
      mailer.function.addToRolePolicy(new PolicyStatement({ actions: ['ses:SendEmail', 'ses:SendRawEmail'], resources: [sesIdentities] }));
      Validations.of(mailer.role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
        reason: 'SES authorizes a send on the sender identity and, while the account is in the SES sandbox, on every recipient '
          + 'identity too; recipients are whoever is invited, so the identities of this account and region are named with a wildcard.',
      });
    }
    // Cursor signing needs the HMAC key; only API handlers list pages. The unmatched and
    // notImplemented functions never encode or decode a cursor.
    for (const [handler, built] of this.functions) {
      if (handler !== unmatchedHandler && handler !== notImplementedHandler) props.context.cursorSecret.grantRead(built.function);
    }

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

    new CfnOutput(this, 'ApiUrl', { value: stage.url });
  }
}
