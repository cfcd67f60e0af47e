import type { DynamoDBRecord } from 'aws-lambda';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DeleteCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { z } from 'zod';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { outboxEntity } from '#store/outbox.ts';

/**
 * `admin events replay-failed`: re-drives what the outbox stream's failure destination holds.
 * What it holds are table stream records the forwarder could not publish (the bus refused them,
 * or an item was malformed); each is re-driven by writing its outbox item again (removed, then put
 * back), which is a new INSERT on the stream: the forwarder takes it as it takes any new event, on
 * the same path, and receivers dedupe on the event id. A record that fails again lands in the
 * failure destination again, visibly. Only then is the held entry removed, so a replay cut short is
 * simply run again.
 *
 * Two holders, one re-drive: in AWS the on-failure SQS queue of the stream's event source mapping
 * (each message names a shard and a range of sequence numbers, read back from the stream, which
 * keeps records 24 hours); locally the `UNDELIVERED` items the stream poller writes when it gives up.
 */
export interface HeldFailure {
  /** What to remove once re-driven. */
  release(): Promise<void>;
  records: DynamoDBRecord[];
}

export interface ReplayResult {
  replayed: number;
  eventIds: string[];
  /** Held entries with no outbox item in them (nothing to re-drive), released all the same. */
  empty: number;
}

export async function replayFailed(held: AsyncIterable<HeldFailure>): Promise<ReplayResult> {
  const result: ReplayResult = { replayed: 0, eventIds: [], empty: 0 };
  for await (const failure of held) {
    const items = failure.records.flatMap((record) => {
      const image = record.eventName === 'INSERT' ? record.dynamodb?.NewImage : undefined;
      if (image?.entity?.S !== outboxEntity) return [];
      return [unmarshall(image as Record<string, AttributeValue>)];
    });
    for (const item of items) {
      await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } }));
      await dynamo().send(new PutCommand({ TableName: tableName(), Item: item }));
      result.eventIds.push(String((item.event as { id?: unknown } | undefined)?.id ?? item.pk));
    }
    if (items.length === 0) result.empty += 1;
    result.replayed += items.length;
    await failure.release();
  }
  return result;
}

/** The local holder: the stream poller's UNDELIVERED items, oldest first. */
export async function* localUndelivered(): AsyncIterable<HeldFailure> {
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.undeliveredStreamRecord('', '').pk },
      ExclusiveStartKey: start,
      ConsistentRead: true,
    }));
    for (const item of page.Items ?? []) {
      yield {
        records: [JSON.parse(String(item.record)) as DynamoDBRecord],
        release: async () => { await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } })); },
      };
    }
    start = page.LastEvaluatedKey;
  } while (start);
}

/** What Lambda's event source mapping sends its on-failure destination for a stream batch. */
const streamFailureSchema = z.object({
  DDBStreamBatchInfo: z.object({
    shardId: z.string(),
    startSequenceNumber: z.string(),
    endSequenceNumber: z.string(),
    streamArn: z.string(),
  }),
});

/** The AWS holder: the on-failure queue (`payments-<env>-outbox-undelivered`), with the default credential chain. */
export async function* queuedUndelivered(queueUrl: string): AsyncIterable<HeldFailure> {
  const sqs = new SQSClient({});
  const streams = new DynamoDBStreamsClient({});
  try {
    for (;;) {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 120 }));
      if (!Messages?.length) return;
      for (const message of Messages) {
        const info = streamFailureSchema.parse(JSON.parse(message.Body ?? '')).DDBStreamBatchInfo;
        yield {
          records: await streamRange(streams, info),
          release: async () => { await sqs.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle })); },
        };
      }
    }
  } finally {
    sqs.destroy();
    streams.destroy();
  }
}

async function streamRange(streams: DynamoDBStreamsClient, info: z.infer<typeof streamFailureSchema>['DDBStreamBatchInfo']): Promise<DynamoDBRecord[]> {
  const records: DynamoDBRecord[] = [];
  const { ShardIterator } = await streams.send(new GetShardIteratorCommand({
    StreamArn: info.streamArn, ShardId: info.shardId, ShardIteratorType: 'AT_SEQUENCE_NUMBER', SequenceNumber: info.startSequenceNumber,
  }));
  let iterator = ShardIterator;
  const end = BigInt(info.endSequenceNumber);
  while (iterator) {
    const page = await streams.send(new GetRecordsCommand({ ShardIterator: iterator }));
    for (const record of page.Records ?? []) {
      if (BigInt(record.dynamodb?.SequenceNumber ?? '0') > end) return records;
      // The stream SDK's images are the same attribute-value shapes (binaries aside, which outbox items have none of).
      records.push({ eventName: record.eventName, dynamodb: { NewImage: record.dynamodb?.NewImage as never, SequenceNumber: record.dynamodb?.SequenceNumber } });
    }
    if (!page.Records?.length) return records;
    iterator = page.NextShardIterator;
  }
  return records;
}
