import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { WorkflowHistoryEvent } from '#platform/workflow.ts';
import { conditionally, dynamo, queryAll, tableName } from './client.ts';
import { keys } from './keys.ts';

/**
 * Workflow execution records of the local runner (lib/local/workflowRunner.ts): what Step
 * Functions keeps for us in AWS. The conditional Put on the execution name (per workflow, as Step
 * Functions scopes names per state machine) is what keeps a second start from running anything,
 * even of a finished one (the runner then answers from the record, as Step Functions answers a
 * repeat: decision 100); the input is kept as sent (`inputJson`), since a repeat is judged by it; the owner and its lease say which process is driving it, so that after a crash another
 * process can take it over, and never two at once. `events` is the execution's history in Step
 * Functions' own shape (GetExecutionHistory), bounded (docs/decisions/084), kept as one JSON string
 * (`eventsJson`): it is only ever written and read whole, and as a list of maps it cost the SDK and
 * DynamoDB Local a conversion per attribute on every write (decision 097). Records written before
 * that keep their `events` list and still read.
 */
export const executionEntity = 'workflowExecution';

export type ExecutionStatus = 'RUNNING' | 'SUCCEEDED' | 'FAILED';

/** gsi2 partition of unfinished executions; removed when they finish, so the index holds only those. */
export const runningExecutionsKey = 'EXECUTION_STATUS#RUNNING';

export interface ExecutionOwner {
  /** One id per runner instance: what the conditions compare. */
  id: string;
  host: string;
  pid: number;
}

export interface ExecutionRecord {
  name: string;
  workflow: string;
  input: Record<string, unknown>;
  /** The input exactly as StartExecution was given it: a repeated start is compared with it, as Step Functions compares. */
  inputJson: string;
  status: ExecutionStatus;
  owner: ExecutionOwner;
  /** Epoch milliseconds; the owner renews it while it drives the execution. */
  leaseExpiresAt: number;
  /** How many times a runner has driven it from the start (1 unless re-driven). */
  drives: number;
  startedAt: string;
  updatedAt: string;
  finishedAt?: string;
  output?: unknown;
  error?: string;
  cause?: string;
  /** States the final drive entered, in order. */
  history?: string[];
  /** The history, as GetExecutionHistory gives it (timestamps as ISO strings), oldest first. */
  events?: StoredHistoryEvent[];
  /** Events left out to keep the record bounded (the oldest after ExecutionStarted). */
  droppedEvents?: number;
  /** The largest state input, output or task payload of the final drive, in UTF-8 bytes (Step Functions refuses past 262,144). */
  largestPayloadBytes?: number;
}

/** One history event as stored: Step Functions' HistoryEvent with its timestamp as an ISO string. */
export type StoredHistoryEvent = WorkflowHistoryEvent;

function fromItem(item: Record<string, unknown>): ExecutionRecord {
  // Records written before the input was kept as sent hold it as a map.
  const inputJson = typeof item.inputJson === 'string' ? item.inputJson : JSON.stringify(item.input ?? {});
  return {
    name: item.name as string,
    workflow: item.workflow as string,
    input: JSON.parse(inputJson) as Record<string, unknown>,
    inputJson,
    status: item.status as ExecutionStatus,
    owner: { id: item.ownerId as string, host: item.ownerHost as string, pid: Number(item.ownerPid) },
    leaseExpiresAt: Number(item.leaseExpiresAt),
    drives: Number(item.drives ?? 1),
    startedAt: item.startedAt as string,
    updatedAt: item.updatedAt as string,
    ...(item.finishedAt ? { finishedAt: item.finishedAt as string } : {}),
    ...(item.output !== undefined ? { output: item.output } : {}),
    ...(item.error ? { error: item.error as string } : {}),
    ...(item.cause ? { cause: item.cause as string } : {}),
    ...(Array.isArray(item.history) ? { history: item.history as string[] } : {}),
    ...(typeof item.eventsJson === 'string'
      ? { events: JSON.parse(item.eventsJson) as StoredHistoryEvent[] }
      : Array.isArray(item.events) ? { events: item.events as StoredHistoryEvent[] } : {}),
    ...(item.droppedEvents ? { droppedEvents: Number(item.droppedEvents) } : {}),
    ...(item.largestPayloadBytes !== undefined ? { largestPayloadBytes: Number(item.largestPayloadBytes) } : {}),
  };
}

/** False when an execution of that name exists already (in whatever state): nothing new runs, and the caller reads it. */
export async function createExecution(input: {
  name: string;
  workflow: string;
  /** The execution's input as sent (JSON text). */
  inputJson: string;
  owner: ExecutionOwner;
  leaseExpiresAt: number;
  events?: StoredHistoryEvent[];
  now?: Date;
}): Promise<boolean> {
  const now = (input.now ?? new Date()).toISOString();
  return conditionally(
    dynamo().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.execution(input.name, input.workflow),
          entity: executionEntity,
          name: input.name,
          workflow: input.workflow,
          inputJson: input.inputJson,
          status: 'RUNNING' satisfies ExecutionStatus,
          ownerId: input.owner.id,
          ownerHost: input.owner.host,
          ownerPid: input.owner.pid,
          leaseExpiresAt: input.leaseExpiresAt,
          drives: 1,
          startedAt: now,
          updatedAt: now,
          gsi2pk: runningExecutionsKey,
          gsi2sk: `${now}#${input.name}`,
          ...(input.events ? { eventsJson: JSON.stringify(input.events) } : {}),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    ),
  );
}

/**
 * The execution of that name: of that workflow when given, else the only one of that name (names
 * are made from the operation, so in practice one workflow has it; the newest start when several).
 */
export async function getExecution(name: string, workflow?: string): Promise<ExecutionRecord | undefined> {
  if (workflow) {
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.execution(name, workflow), ConsistentRead: true }),
    );
    return Item ? fromItem(Item) : undefined;
  }
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.execution(name, '').pk },
      ConsistentRead: true,
    }),
  );
  const records = (Items ?? []).map(fromItem).sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  return records.at(-1);
}

/** Executions still RUNNING (the index is eventually consistent: re-read each one before acting). */
export async function listRunningExecutions(): Promise<{ name: string; workflow: string }[]> {
  const items = await queryAll({
    TableName: tableName(),
    IndexName: 'gsi2v2',
    KeyConditionExpression: 'gsi2pk = :running',
    ExpressionAttributeValues: { ':running': runningExecutionsKey },
    ProjectionExpression: '#name, workflow',
    ExpressionAttributeNames: { '#name': 'name' },
  });
  return items.map((item) => ({ name: item.name as string, workflow: item.workflow as string }));
}

/** The owner records the history so far (bounded by the caller); false when it is no longer the owner. */
export async function recordEvents(name: string, workflow: string, ownerId: string, events: StoredHistoryEvent[], droppedEvents: number): Promise<boolean> {
  return conditionally(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.execution(name, workflow),
        UpdateExpression: 'SET eventsJson = :events, droppedEvents = :dropped REMOVE events',
        ConditionExpression: '#status = :running AND ownerId = :owner',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':events': JSON.stringify(events), ':dropped': droppedEvents, ':running': 'RUNNING', ':owner': ownerId },
      }),
    ),
  );
}

/** The owner extends its lease; false when it is no longer the owner (another process took over). */
export async function renewLease(name: string, workflow: string, ownerId: string, leaseExpiresAt: number, now = new Date()): Promise<boolean> {
  return conditionally(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.execution(name, workflow),
        UpdateExpression: 'SET leaseExpiresAt = :lease, updatedAt = :now',
        ConditionExpression: '#status = :running AND ownerId = :owner',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':lease': leaseExpiresAt, ':now': now.toISOString(), ':running': 'RUNNING', ':owner': ownerId },
      }),
    ),
  );
}

/**
 * Takes over an execution whose owner is gone. The condition is on the owner and lease just
 * read: if that owner renewed meanwhile, or another process claimed first, this claim fails.
 */
export async function claimExecution(
  seen: ExecutionRecord,
  owner: ExecutionOwner,
  leaseExpiresAt: number,
  now = new Date(),
): Promise<boolean> {
  return conditionally(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.execution(seen.name, seen.workflow),
        UpdateExpression:
          'SET ownerId = :owner, ownerHost = :host, ownerPid = :pid, leaseExpiresAt = :lease, updatedAt = :now ADD drives :one',
        ConditionExpression: '#status = :running AND ownerId = :seenOwner AND leaseExpiresAt = :seenLease',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':owner': owner.id,
          ':host': owner.host,
          ':pid': owner.pid,
          ':lease': leaseExpiresAt,
          ':now': now.toISOString(),
          ':one': 1,
          ':running': 'RUNNING',
          ':seenOwner': seen.owner.id,
          ':seenLease': seen.leaseExpiresAt,
        },
      }),
    ),
  );
}

/**
 * Outputs kept on the record: Step Functions keeps up to 256 KiB of output, but the record already
 * holds the whole input (for a re-drive and for judging a repeat) and DynamoDB holds 400 KB an item.
 * Every output of ours is far smaller; a larger one is marked `outputOmitted`.
 */
const maxRecordedOutputBytes = 64 * 1024;

export function outputFits(output: unknown): boolean {
  return Buffer.byteLength(JSON.stringify(output ?? null), 'utf8') <= maxRecordedOutputBytes;
}

/** Records the end; only the owner may. Leaves the index of running executions. */
export async function finishExecution(
  name: string,
  workflow: string,
  ownerId: string,
  outcome: { status: 'SUCCEEDED'; output: unknown } | { status: 'FAILED'; error: string; cause: string },
  history: string[] = [],
  recorded: { events: StoredHistoryEvent[]; droppedEvents: number; largestPayloadBytes?: number } = { events: [], droppedEvents: 0 },
  now = new Date(),
): Promise<boolean> {
  const values: Record<string, unknown> = {
    ':status': outcome.status,
    ':now': now.toISOString(),
    ':running': 'RUNNING',
    ':owner': ownerId,
    ':history': history,
    ':events': JSON.stringify(recorded.events),
    ':dropped': recorded.droppedEvents,
    ':largest': recorded.largestPayloadBytes ?? 0,
  };
  let set = '#status = :status, finishedAt = :now, updatedAt = :now, history = :history, eventsJson = :events, droppedEvents = :dropped, largestPayloadBytes = :largest';
  let names: Record<string, string> = {};
  if (outcome.status === 'SUCCEEDED' && outputFits(outcome.output)) {
    set += ', #output = :output';
    values[':output'] = outcome.output ?? null;
    names = { '#output': 'output' };
  } else if (outcome.status === 'SUCCEEDED') {
    set += ', outputOmitted = :omitted';
    values[':omitted'] = true;
  } else {
    set += ', #error = :error, #cause = :cause';
    values[':error'] = outcome.error;
    values[':cause'] = outcome.cause;
    names = { '#error': 'error', '#cause': 'cause' };
  }
  return conditionally(
    dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.execution(name, workflow),
        UpdateExpression: `SET ${set} REMOVE gsi2pk, gsi2sk, events`,
        ConditionExpression: '#status = :running AND ownerId = :owner',
        ExpressionAttributeNames: { '#status': 'status', ...names },
        ExpressionAttributeValues: values,
      }),
    ),
  );
}
