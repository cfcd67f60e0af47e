import type { CreateTableCommandInput, GlobalSecondaryIndex } from '@aws-sdk/client-dynamodb';

/**
 * One secondary index. `projects` is what a read of the index can see besides the keys (the
 * table's and the index's own): every write of an indexed item is billed again on the index for
 * the size of what it projects, and an update that changes none of it writes nothing there, so
 * each index projects only the attributes its readers ask of it; readers that need whole items
 * read them from the table (docs/decisions/127).
 */
interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  /** The non-key attributes it projects; ALL only on the retired indexes. */
  projects: readonly string[] | 'ALL';
}

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
    // `v2`: the same keys as the gsi1 it replaces (projection ALL), projecting only the rows of the
    // payment list (transactions.ts listItemView) and of the event list (webhooks.ts eventSummary).
    {
      name: 'gsi1v2',
      partitionKey: 'gsi1pk',
      sortKey: 'gsi1sk',
      projects: ['transactionId', 'corridor', 'send', 'recipientReference', 'createdAt', 'id', 'type', 'deliveryStatus'],
    },
    // Lookups by an external handle (wallet externalId, deposit reference, quote id): gsi2pk = <kind>#<handle>;
    // the sweeper's starting index; subsets of a list. `v2`: the same keys as gsi2 (projection ALL), projecting
    // the rows of an event list of one type, a running execution's name and workflow (executions.ts), and
    // which wallet a handle names (wallets.ts).
    {
      name: 'gsi2v2',
      partitionKey: 'gsi2pk',
      sortKey: 'gsi2sk',
      projects: ['id', 'type', 'createdAt', 'deliveryStatus', 'name', 'workflow', 'organizationId'],
    },
  ] satisfies readonly IndexDefinition[],
  /**
   * The indexes of tables made before decision 127, which the two above replace. A kept local table
   * loses them at start (lib/local/dynamodbLocal.ts); a deployed one keeps them only while it moves
   * over, by the steps of docs/decisions/127 (the data stack's `tableIndexes` context). No reader uses them.
   */
  retiredIndexes: [
    { name: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk', projects: 'ALL' },
    { name: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projects: 'ALL' },
  ] satisfies readonly IndexDefinition[],
  /** Epoch seconds; DynamoDB deletes expired quotes and rate records on its own schedule. */
  timeToLiveAttribute: 'ttl',
  /** The outbox rides the stream: NEW_IMAGE is all the event forwarder needs. */
  streamViewType: 'NEW_IMAGE',
} as const;

export type IndexName = (typeof table.globalIndexes)[number]['name'];

/** The index's definition by name. */
export function tableIndex(name: IndexName) {
  return table.globalIndexes.find((index) => index.name === name)!;
}

export function globalIndexInput(index: IndexDefinition): GlobalSecondaryIndex {
  return {
    IndexName: index.name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: 'HASH' },
      { AttributeName: index.sortKey, KeyType: 'RANGE' },
    ],
    Projection: index.projects === 'ALL' ? { ProjectionType: 'ALL' } : { ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projects] },
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
    GlobalSecondaryIndexes: table.globalIndexes.map(globalIndexInput),
    StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamViewType },
  };
}
