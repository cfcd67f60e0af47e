import { readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import * as z from 'zod';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent, AttributeValue as LambdaAttributeValue } from 'aws-lambda';
import { DescribeTableCommand, DynamoDBClient, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { keys } from '#store/keys.ts';
import { dynamoEndpointSettings } from '#store/client.ts';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  ExpiredIteratorException,
  GetRecordsCommand,
  GetShardIteratorCommand,
  TrimmedDataAccessException,
  type AttributeValue,
  type ShardIteratorType,
  type _Record,
} from '@aws-sdk/client-dynamodb-streams';
import { logger } from '#platform/logger.ts';
import { handler as outboxForwarder } from '../../functions/events/outboxForwarder.ts';
import { outboxForwarderHandler as outboxForwarderEntry } from '../aws/handlers.ts';
import { invokeAs, localGrants } from './grants/enforcement.ts';

/** The table stream's consumer as deployed: its event source mapping and its role are checked, then it runs as itself. */
function asForwarder<T>(work: () => Promise<T>): Promise<T> {
  localGrants()?.checkStreamConsumer(outboxForwarderEntry);
  return invokeAs(outboxForwarderEntry, work);
}

/**
 * DynamoDB Streams on this machine: polls DynamoDB Local's stream of the table and hands each
 * batch, in the shape Lambda's event source mapping gives, to the same handler the stream's
 * Lambda runs in AWS (the outbox forwarder). Like the event source mapping it reads each shard
 * in order, finishes a parent shard before its children, and hands a batch again from the
 * first record the handler reported as failed.
 */
export interface StreamPollerOptions {
  tableName: string;
  /** DynamoDB Local's endpoint; omit for the SDK's default (a real table). */
  endpoint?: string;
  region?: string;
  /** Pause between passes over the shards. */
  intervalMs?: number;
  /** LATEST (default): only what is written from now on. TRIM_HORIZON: everything the stream still holds. */
  startingPosition?: 'LATEST' | 'TRIM_HORIZON';
  batchSize?: number;
  /**
   * Hand-overs of one failing record before it is given up (logged, kept in `undelivered` and as an
   * `UNDELIVERED` item of the table), as the event source mapping's retryAttempts sends it to its
   * on-failure queue in AWS.
   */
  maxRetries?: number;
  handler?: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
  /**
   * The event source mapping's filter criteria: only records of this event name whose new image
   * has this `entity` reach the handler; the others pass by, as in AWS. None: every record.
   */
  filter?: { eventName: string; entity: string };
  /**
   * Where to keep the poller's place across restarts, as the event source mapping keeps its
   * checkpoint (docs/decisions/150): a file holding each shard's last record handed over.
   * `settled` resolves once everything the handler handed on before the call has been through to
   * its end (the local bus is in memory: a record is behind the checkpoint only once its events'
   * deliveries ended). A shard the file names is read on after its record, the others from
   * `startingPosition`. None: every start begins at `startingPosition`.
   */
  checkpoint?: { file: string; settled: () => Promise<void> };
}

export interface UndeliveredRecord {
  shardId: string;
  sequenceNumber: string;
  record: DynamoDBRecord;
}

export interface StreamPoller {
  /** Records given up after maxRetries (the on-failure queue of the AWS wiring). */
  readonly undelivered: UndeliveredRecord[];
  stop(): Promise<void>;
  /** Resolves after a complete pass, begun after the call, found nothing new to hand over. */
  drained(): Promise<void>;
}

const checkpointSchema = z.object({
  /** The stream it is a place in: a table made again has a new one, and its reading starts over. */
  stream: z.string(),
  /** Per shard, the last record handed over and settled. */
  shards: z.record(z.string(), z.string()),
  /** Closed shards read to their end. */
  finished: z.array(z.string()),
});
type Checkpoint = z.infer<typeof checkpointSchema>;

function readCheckpoint(file: string, stream: string): Checkpoint {
  const none = { stream, shards: {}, finished: [] };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return none;
  }
  let parsed;
  try {
    parsed = checkpointSchema.safeParse(JSON.parse(text));
  } catch {
    parsed = undefined;
  }
  if (!parsed?.success) throw new Error(`${file} is not a stream checkpoint; remove it to read the stream from its start`);
  return parsed.data.stream === stream ? parsed.data : none;
}

interface ShardState {
  id: string;
  parentId: string | undefined;
  iterator: string | undefined;
  /** Last sequence number handed over successfully: where to pick up if the iterator expires. */
  lastSequence: string | undefined;
  /** Where a fresh iterator starts when nothing has been read from this shard yet. */
  initialPosition: ShardIteratorType;
  done: boolean;
  /** The iterator was refused as trimmed and a fresh one taken after lastSequence, with nothing read since. */
  trimmedOnce?: boolean;
  /** The record the handler keeps refusing, and how many times it has. */
  failing?: { sequenceNumber: string; attempts: number };
}

/** A shard listing per this many passes is plenty to notice a roll-over or split. */
const describeEveryPasses = 20;
/** Batches read from one shard in one pass before the others get their turn. */
const batchesPerShardPerPass = 10;

export async function startStreamPoller(options: StreamPollerOptions): Promise<StreamPoller> {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const clientConfig = {
    region,
    ...dynamoEndpointSettings(options.endpoint),
  };
  const dynamodb = new DynamoDBClient(clientConfig);
  const streams = new DynamoDBStreamsClient(clientConfig);
  const intervalMs = options.intervalMs ?? 250;
  const batchSize = options.batchSize ?? 100;
  const startingPosition = options.startingPosition ?? 'LATEST';
  const handle = options.handler ?? outboxForwarder;
  const maxRetries = options.maxRetries ?? 10;
  const undelivered: UndeliveredRecord[] = [];

  /**
   * Kept in the table too, as the on-failure queue keeps it in AWS, so that another process
   * (`admin events replay-failed`, lib/ops/replayUndelivered.ts) can re-drive it.
   */
  async function holdUndelivered(given: UndeliveredRecord): Promise<void> {
    await dynamodb.send(new PutItemCommand({
      TableName: options.tableName,
      Item: marshall({
        ...keys.undeliveredStreamRecord(given.shardId, given.sequenceNumber),
        entity: 'undeliveredStreamRecord',
        record: JSON.stringify(given.record),
        givenUpAt: new Date().toISOString(),
      }),
    }));
  }

  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }));
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream; it must be created from functions/contract/table.ts`);

  const shards = new Map<string, ShardState>();
  const checkpointed = options.checkpoint ? readCheckpoint(options.checkpoint.file, streamArn) : { stream: streamArn, shards: {}, finished: [] };
  /** Closed shards read to their end, kept for the checkpoint after they leave `shards`. */
  const finished = new Set(checkpointed.finished);

  async function describeShards(initial: boolean): Promise<void> {
    let exclusiveStartShardId: string | undefined;
    do {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: exclusiveStartShardId }),
      );
      for (const shard of StreamDescription?.Shards ?? []) {
        if (!shard.ShardId || shards.has(shard.ShardId)) continue;
        const closed = Boolean(shard.SequenceNumberRange?.EndingSequenceNumber);
        shards.set(shard.ShardId, {
          id: shard.ShardId,
          parentId: shard.ParentShardId,
          iterator: undefined,
          lastSequence: checkpointed.shards[shard.ShardId],
          // Shards that appear later are children of ones we read: read them from their start.
          initialPosition: initial ? startingPosition : 'TRIM_HORIZON',
          // Starting at LATEST, a shard that is already closed holds nothing new.
          done: finished.has(shard.ShardId) || (initial && startingPosition === 'LATEST' && closed),
        });
      }
      exclusiveStartShardId = StreamDescription?.LastEvaluatedShardId;
    } while (exclusiveStartShardId);
  }

  async function iteratorFor(shard: ShardState): Promise<string | undefined> {
    const position: { ShardIteratorType: ShardIteratorType; SequenceNumber?: string } = shard.lastSequence
      ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: shard.lastSequence }
      : { ShardIteratorType: shard.initialPosition };
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.id, ...position }),
    );
    return ShardIterator;
  }

  /** A parent still being read holds records older than its children's. */
  function readable(shard: ShardState): boolean {
    if (shard.done) return false;
    const parent = shard.parentId ? shards.get(shard.parentId) : undefined;
    return !parent || parent.done;
  }

  /** Reads one shard for this pass; answers how many records it handed over. */
  async function readShard(shard: ShardState): Promise<number> {
    let handed = 0;
    for (let batch = 0; batch < batchesPerShardPerPass && !stopped; batch += 1) {
      let response;
      try {
        shard.iterator ??= await iteratorFor(shard);
        if (!shard.iterator) {
          shard.done = true;
          finished.add(shard.id);
          return handed;
        }
        response = await streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: batchSize }));
      } catch (error) {
        if (error instanceof ExpiredIteratorException) {
          shard.iterator = undefined;
          continue;
        }
        if (error instanceof TrimmedDataAccessException) {
          shard.iterator = undefined;
          if (shard.lastSequence && !shard.trimmedOnce) {
            // DynamoDB Local refuses an iterator taken while its shard was empty once records arrive
            // behind it; a fresh one after the last record handed over reads on without repeats.
            logger.warn('stream iterator refused as trimmed; reading on after the last record handed over', { shardId: shard.id });
            shard.trimmedOnce = true;
            continue;
          }
          // What we had not read yet is gone; carry on from the oldest record still held.
          logger.error('stream records expired before they were read', { shardId: shard.id });
          shard.trimmedOnce = false;
          shard.lastSequence = undefined;
          shard.initialPosition = 'TRIM_HORIZON';
          continue;
        }
        throw error;
      }
      shard.trimmedOnce = false;
      const records = response.Records ?? [];
      if (records.length > 0) {
        const failedAt = await handOver(records);
        if (failedAt !== undefined) {
          const failedRecord = records[failedAt]!;
          const sequenceNumber = failedRecord.dynamodb?.SequenceNumber ?? '';
          const attempts = shard.failing?.sequenceNumber === sequenceNumber ? shard.failing.attempts + 1 : 1;
          shard.failing = { sequenceNumber, attempts };
          const lastGood = failedAt > 0 ? records[failedAt - 1]?.dynamodb?.SequenceNumber : undefined;
          if (lastGood) shard.lastSequence = lastGood;
          if (attempts > maxRetries) {
            // Give it up, as the event source mapping does, and carry on after it.
            logger.error('stream record given up after retries', { shardId: shard.id, sequenceNumber, attempts });
            const given = { shardId: shard.id, sequenceNumber, record: toLambdaRecord(failedRecord, streamArn!, region) };
            undelivered.push(given);
            await holdUndelivered(given);
            shard.failing = undefined;
            shard.lastSequence = sequenceNumber;
            shard.iterator = undefined;
            handed += failedAt + 1;
            continue;
          }
          // Hand it over again from the first failure, on a later pass. An iterator can be read
          // again; past the first record a fresh one starts after the last record handed over.
          if (failedAt > 0) shard.iterator = undefined;
          throw new HandOverFailed(shard.id);
        }
        shard.failing = undefined;
        shard.lastSequence = records.at(-1)?.dynamodb?.SequenceNumber ?? shard.lastSequence;
        handed += records.length;
      }
      shard.iterator = response.NextShardIterator;
      if (!shard.iterator) {
        shard.done = true;
        finished.add(shard.id);
        return handed;
      }
      if (records.length === 0) return handed;
    }
    return handed;
  }

  /** Answers the index of the first record to hand over again, or undefined when all went through. */
  async function handOver(records: _Record[]): Promise<number | undefined> {
    const { filter } = options;
    const matching = filter ? records.filter((record) => record.eventName === filter.eventName && record.dynamodb?.NewImage?.entity?.S === filter.entity) : records;
    if (matching.length === 0) return undefined;
    const event: DynamoDBStreamEvent = { Records: matching.map((record) => toLambdaRecord(record, streamArn!, region)) };
    try {
      const result = await (options.handler ? handle(event) : asForwarder(() => handle(event)));
      const failed = new Set((result?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      if (failed.size === 0) return undefined;
      const index = records.findIndex((record) => failed.has(record.dynamodb?.SequenceNumber ?? ''));
      return index === -1 ? 0 : index;
    } catch (error) {
      logger.error('stream handler failed', { error: error as Error });
      return 0;
    }
  }

  let stopped = false;
  let passes = 0;
  let saving: Promise<void> | undefined;
  let saved = JSON.stringify(checkpointed);

  /**
   * Writes the shards' places once what was handed over up to them has settled; in the background,
   * one write at a time, so the poll goes on. A kill before it lands costs repeats, never a record.
   */
  function saveCheckpoint(): void {
    const { checkpoint } = options;
    if (!checkpoint || saving) return;
    const place: Checkpoint = {
      stream: streamArn!,
      shards: Object.fromEntries([...shards.values()].flatMap((shard) => (shard.lastSequence ? [[shard.id, shard.lastSequence]] : []))),
      finished: [...finished],
    };
    const text = JSON.stringify(place);
    if (text === saved) return;
    saving = checkpoint.settled()
      .then(async () => {
        if (stopped) return;
        // Written whole, then renamed over the old one: a kill leaves the old place or the new, never half.
        await writeFile(`${checkpoint.file}.next`, text);
        await rename(`${checkpoint.file}.next`, checkpoint.file);
        saved = text;
      })
      .catch((error: unknown) => logger.warn('stream checkpoint not saved', { error: error as Error }))
      .finally(() => (saving = undefined));
  }

  let drainWaiters: { fromPass: number; resolve: () => void }[] = [];
  let wake: (() => void) | undefined;

  async function pass(): Promise<boolean> {
    if (passes % describeEveryPasses === 0 || [...shards.values()].every((shard) => shard.done)) {
      await describeShards(false);
    }
    let handed = 0;
    let clean = true;
    for (const shard of [...shards.values()]) {
      if (stopped) break;
      if (!readable(shard)) continue;
      try {
        handed += await readShard(shard);
      } catch (error) {
        clean = false;
        if (!(error instanceof HandOverFailed)) logger.warn('stream read failed', { shardId: shard.id, error: error as Error });
      }
    }
    // Closed shards that were fully read are forgotten once their children have been seen.
    for (const shard of shards.values()) {
      if (shard.done && [...shards.values()].some((other) => other.parentId === shard.id && other.done)) shards.delete(shard.id);
    }
    return clean && handed === 0;
  }

  await describeShards(true);
  // Position every open shard now, so that LATEST means "from when startStreamPoller resolved".
  for (const shard of shards.values()) {
    // A checkpointed place that cannot be read from is dealt with by the first read (readShard).
    if (!shard.done && readable(shard)) shard.iterator = await iteratorFor(shard).catch((error: unknown) => {
      if (shard.lastSequence) return undefined;
      throw error;
    });
  }

  const loop = (async () => {
    while (!stopped) {
      const thisPass = ++passes;
      let quiet = false;
      try {
        quiet = await pass();
      } catch (error) {
        logger.warn('stream poll failed', { error: error as Error });
      }
      saveCheckpoint();
      if (quiet) {
        const ready = drainWaiters.filter((waiter) => waiter.fromPass <= thisPass);
        drainWaiters = drainWaiters.filter((waiter) => waiter.fromPass > thisPass);
        ready.forEach((waiter) => waiter.resolve());
      }
      if (stopped) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, intervalMs);
        wake = () => (clearTimeout(timer), resolve());
      });
      wake = undefined;
    }
  })();

  return {
    undelivered,
    drained() {
      if (stopped) return Promise.resolve();
      return new Promise<void>((resolve) => drainWaiters.push({ fromPass: passes + 1, resolve }));
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
      drainWaiters.forEach((waiter) => waiter.resolve());
      drainWaiters = [];
      streams.destroy();
      dynamodb.destroy();
    },
  };
}

class HandOverFailed extends Error {
  constructor(shardId: string) {
    super(`records of shard ${shardId} will be handed over again`);
    this.name = 'HandOverFailed';
  }
}

function toLambdaRecord(record: _Record, streamArn: string, region: string): DynamoDBRecord {
  const data = record.dynamodb;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion ?? region,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(data?.ApproximateCreationDateTime
        ? { ApproximateCreationDateTime: Math.floor(data.ApproximateCreationDateTime.getTime() / 1000) }
        : {}),
      Keys: data?.Keys ? toLambdaImage(data.Keys) : undefined,
      NewImage: data?.NewImage ? toLambdaImage(data.NewImage) : undefined,
      OldImage: data?.OldImage ? toLambdaImage(data.OldImage) : undefined,
      SequenceNumber: data?.SequenceNumber,
      SizeBytes: data?.SizeBytes,
      StreamViewType: data?.StreamViewType,
    },
  };
}

function toLambdaImage(image: Record<string, AttributeValue>): Record<string, LambdaAttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaValue(value)]));
}

/** The SDK gives binaries as bytes; Lambda's JSON event carries them base64-encoded. */
function toLambdaValue(value: AttributeValue): LambdaAttributeValue {
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((bytes) => Buffer.from(bytes).toString('base64')) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaValue) };
  return value as LambdaAttributeValue;
}
