import { NestedStack, Validations, type NestedStackProps } from 'aws-cdk-lib';
import { HttpMethod, HttpRoute, HttpRouteKey, type HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { routeNeeds, type RouteDefinition, type TableAccess } from '#contract/routes.ts';
import { workflows } from '#contract/workflows.ts';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import type { ApiArea } from './apiAreas.ts';
import { grantMailSending, stateMachineArn } from './environment.ts';
import { entryName } from './handlers.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';

export interface ApiAreaStackProps extends NestedStackProps {
  area: ApiArea;
  context: FunctionContext;
  bundleOf: (entry: string) => LambdaBundle;
  /** The parent's HTTP API: routes name its id, invoke permissions its execute-api ARN (parameters of this stack). */
  httpApi: HttpApi;
  /** The route rows of this area, by handler module: one function per module, one route per row. */
  rowsByHandler: ReadonlyMap<string, readonly RouteDefinition[]>;
  /** Base of links in e-mails, for the handlers whose rows send mail. */
  publicBaseUrl: string;
  /** On a stage with an edge: the secret of the header CloudFront adds, which every endpoint checks. */
  originSecret?: ISecret;
}

/**
 * One area of the route table (lib/aws/apiAreas.ts) as a nested stack of the API stack: the Lambda of
 * each handler module with its role, policy and log group, its integration, invoke permission and
 * routes. Everything shared (the HTTP API, its stage, the unmatched-route function, the SES configuration set)
 * stays in the parent; this stack only references the API, so nothing here points back at a sibling.
 */
export class ApiAreaStack extends NestedStack {
  readonly functions = new Map<string, ServiceFunction>();

  constructor(scope: Construct, id: string, props: ApiAreaStackProps) {
    super(scope, id, props);
    const { settings } = props.context;

    // Rows sharing a module share a function: it gets the union of what they need.
    const tableLevels: TableAccess[] = ['none', 'read', 'write'];
    const tableOf = (rows: readonly RouteDefinition[]): TableAccess =>
      tableLevels[Math.max(0, ...rows.map((row) => tableLevels.indexOf(routeNeeds(row).table)))]!;

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

    for (const [handler, rows] of props.rowsByHandler) {
      const built = new ServiceFunction(this, entryName(handler), {
        context: props.context,
        bundle: props.bundleOf(handler),
        table: tableOf(rows),
        tableExtras: [...new Set(rows.flatMap((row) => routeNeeds(row).tableExtras))],
      });
      this.functions.set(handler, built);
      // A function behind many routes gets one API-wide invoke permission instead of one per
      // route: the notImplemented function serves several routes, and one statement per route
      // would outgrow Lambda's 20 KB resource-policy limit.
      const integration = new HttpLambdaIntegration(`${entryName(handler)}Integration`, built.function, { scopePermissionToRoute: rows.length <= 1 });
      for (const row of rows) {
        new HttpRoute(routeScope, row.operationId, {
          httpApi: props.httpApi,
          routeKey: HttpRouteKey.with(row.path, HttpMethod[row.method]),
          integration,
        });
      }

      // Least privilege from the route table (routeNeeds): states:StartExecution on exactly the
      // workflows a row starts, the cursor key only where cursors are made or read.
      const starts = [...new Set(rows.flatMap((row) => routeNeeds(row).starts))];
      if (starts.length > 0) {
        built.function.addToRolePolicy(new PolicyStatement({
          actions: ['states:StartExecution'],
          resources: starts.map((workflow) => stateMachineArn(this, settings, workflows[workflow].name)),
        }));
      }
      if (rows.some((row) => routeNeeds(row).cursors)) props.context.cursorSecret.grantRead(built.function);
      if (rows.some((row) => routeNeeds(row).sealsSecrets)) props.context.webhookSecretKey.grant(built.function, 'kms:GenerateDataKey');
      if (rows.some((row) => routeNeeds(row).opensSecrets)) props.context.webhookSecretKey.grantDecrypt(built.function);
      // Only the handlers whose row `sendsMail` may send, and only as the stage's identity through its set.
      if (rows.some((row) => row.sendsMail)) grantMailSending(built.function, settings, props.publicBaseUrl);
      // Every endpoint refuses what did not come through the edge (functions/platform/edgeOrigin.ts).
      if (props.originSecret) {
        props.originSecret.grantRead(built.function);
        built.function.addEnvironment('ORIGIN_SECRET_ARN', props.originSecret.secretArn);
      }
    }

  }
}
