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
    // Statement lines (docs/decisions/096): payments only, gsi3pk = ORG#<id>#TX, gsi3sk = <createdAt>#<id>,
    // carrying only what a line needs, so a statement of 10,000 payments reads about 2.5 MB, not 17.
    {
      name: 'gsi3', partitionKey: 'gsi3pk', sortKey: 'gsi3sk',
      include: ['transactionId', 'corridor', 'send', 'fee', 'state', 'recipientReference', 'createdAt'],
    },
  ],
  /** Epoch seconds; DynamoDB deletes expired quotes and rate records on its own schedule. */
  timeToLiveAttribute: 'ttl',
  /** The outbox rides the stream: NEW_IMAGE is all the event forwarder needs. */
  streamViewType: 'NEW_IMAGE',
} as const;

export interface GlobalIndex {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** Attributes projected besides the keys; every attribute when absent. */
  include?: readonly string[];
}

/** The index as CreateTable and UpdateTable take it. */
export function globalIndexInput(index: GlobalIndex) {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
    ],
    Projection: index.include ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.include] } : { ProjectionType: 'ALL' as const },
  };
}

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
    GlobalSecondaryIndexes: (table.globalIndexes as readonly GlobalIndex[]).map(globalIndexInput),
    StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamViewType },
  };
}
