import { CfnOutput, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, AnyPrincipal, Effect, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { table as tableDefinition } from '#contract/table.ts';
import type { StageSettings } from './environment.ts';

export interface DataStackProps extends StackProps {
  settings: StageSettings;
}

/**
 * The stateful part: the single table and the cursor key. Kept apart from the functions so that
 * redeploying code never touches data, and so that outside `simulated` the data outlives even a
 * deleted stack (RETAIN plus deletion protection).
 */
export class DataStack extends Stack {
  readonly table: Table;
  readonly cursorSecret: Secret;
  readonly webhookSecretKey: Key;

  constructor(scope: Construct, id: string, props: DataStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const string = (name: string) => ({ name, type: AttributeType.STRING });

    // Built from the same definition as DynamoDB Local's table (functions/contract/table.ts): one truth.
    this.table = new Table(this, 'Table', {
      tableName: settings.prefix,
      partitionKey: string(tableDefinition.partitionKey),
      sortKey: string(tableDefinition.sortKey),
      billingMode: BillingMode.PAY_PER_REQUEST,
      // KMS (the account's aws/dynamodb key), so every read of the data is in CloudTrail's KMS log.
      encryption: TableEncryption.AWS_MANAGED,
      stream: StreamViewType[tableDefinition.streamViewType],
      timeToLiveAttribute: tableDefinition.timeToLiveAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: settings.stateful.deletionProtection,
      removalPolicy: settings.stateful.removalPolicy,
    });
    for (const index of tableIndexes(this)) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: string(index.partitionKey),
        sortKey: string(index.sortKey),
        ...(index.projects === 'ALL'
          ? { projectionType: ProjectionType.ALL }
          : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projects] }),
      });
    }

    // Cursors are HMAC-signed (functions/store/cursors.ts); the key never appears in a template
    // or an environment variable, only its ARN does.
    this.cursorSecret = new Secret(this, 'CursorKey', {
      secretName: `${settings.prefix}/cursor-hmac-key`,
      description: 'HMAC key that signs pagination cursors',
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
      removalPolicy: settings.stateful.removalPolicy,
    });
    Validations.of(this.cursorSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'Rotating the cursor key invalidates every cursor in flight (clients get 400 invalid_cursor mid-listing); '
        + 'it is rotated by hand when needed (docs/deployment.md), not on a schedule.',
    });

    // Webhook signing secrets are sealed under data keys of this key (functions/store/secretBox.ts):
    // only the endpoint handler may make data keys, and only what attempts deliveries may open them
    // (the webhook starter's first attempt and the delivery task: docs/decisions/132).
    this.webhookSecretKey = new Key(this, 'WebhookSecretsKey', {
      description: 'Seals webhook signing secrets (envelope encryption, one data key per secret)',
      enableKeyRotation: true,
      removalPolicy: settings.stateful.removalPolicy,
      // The account administers the key and lets IAM policies grant its use (the two functions'
      // roles); grants may be made only for AWS services, so no principal can grant itself Decrypt.
      policy: new PolicyDocument({
        statements: [
          new PolicyStatement({
            principals: [new AccountRootPrincipal()],
            actions: [
              'kms:Describe*', 'kms:List*', 'kms:Get*', 'kms:Enable*', 'kms:Disable*', 'kms:Put*', 'kms:Update*', 'kms:Revoke*',
              'kms:CreateAlias', 'kms:DeleteAlias', 'kms:TagResource', 'kms:UntagResource', 'kms:ScheduleKeyDeletion', 'kms:CancelKeyDeletion',
              'kms:Encrypt', 'kms:Decrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*', 'kms:CreateGrant',
            ],
            resources: ['*'],
          }),
          new PolicyStatement({
            effect: Effect.DENY,
            principals: [new AnyPrincipal()],
            actions: ['kms:CreateGrant'],
            resources: ['*'],
            conditions: { BoolIfExists: { 'kms:GrantIsForAWSResource': 'false', 'aws:PrincipalIsAWSService': 'false' } },
          }),
        ],
      }),
    });

    new CfnOutput(this, 'TableName', { value: this.table.tableName });
  }
}

/**
 * The table's indexes: the definition's, unless the `tableIndexes` context names others while a
 * deployed table moves from retired indexes to their successors. CloudFormation creates or deletes
 * one index per update, so that move is a few deployments, each naming the indexes to hold
 * (docs/decisions/127): `-c tableIndexes=gsi1,gsi2,gsi1v2`, and so on.
 */
function tableIndexes(scope: Construct) {
  const given: unknown = scope.node.tryGetContext('tableIndexes');
  if (given === undefined) return tableDefinition.globalIndexes;
  const known = [...tableDefinition.globalIndexes, ...tableDefinition.retiredIndexes];
  const names = String(given).split(',').map((name) => name.trim()).filter(Boolean);
  return names.map((name) => {
    const index = known.find((candidate) => candidate.name === name);
    if (!index) throw new Error(`tableIndexes names ${name}; the table's indexes are ${known.map((candidate) => candidate.name).join(', ')}`);
    return index;
  });
}
