import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The one definition of the single table. The CDK data stack and the local launcher
 * (and the test harness) both build the table from this, so they cannot drift.
 * Item types, keys and access patterns: docs/data-model.md.
 */
export const table = {
  partitionKey: 'pk',
  sortKey: 'sk',
  globalIndexes: [
    // Lists of an organization's resources, newest first: gsi1pk = ORG#<id>#<kind>, gsi1sk = <createdAt>#<id>.
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
    // Lookups by an external handle (wallet externalId, deposit reference, quote id): gsi2pk = <kind>#<handle>.
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
  ],
  /** Epoch seconds; DynamoDB deletes expired quotes and rate records on its own schedule. */
  timeToLiveAttribute: 'ttl',
  /** The outbox rides the stream: NEW_IMAGE is all the event forwarder needs. */
  streamViewType: 'NEW_IMAGE',
} as const;

export function createTableInput(tableName: string): CreateTableCommandInput {
  const keyAttributes = [
    table.partitionKey,
    table.sortKey,
    ...table.globalIndexes.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: keyAttributes.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
    KeySchema: [
      { AttributeName: table.partitionKey, KeyType: 'HASH' },
      { AttributeName: table.sortKey, KeyType: 'RANGE' },
    ],
    GlobalSecondaryIndexes: table.globalIndexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' },
        { AttributeName: index.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'ALL' },
    })),
    StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamViewType },
  };
}
