import { readFileSync } from 'node:fs';
import path from 'node:path';
import { reloadConfig, config } from '#platform/config.ts';
import { resetDynamoClient } from '#store/client.ts';
import { useWorkflowEngine } from '#platform/workflow.ts';
import { useEventBus } from '#platform/eventBus.ts';
import { startDynamoDbLocal, ensureTable, type RunningDynamoDb } from './dynamodbLocal.ts';
import { startHttpServer } from './httpServer.ts';
import { LocalWorkflowRunner } from './workflowRunner.ts';
import { LocalEventBus } from './eventBus.ts';
import { startStreamPoller } from './streamPoller.ts';
import { outboxStreamFilter } from '#store/outbox.ts';
import { sweeperHandler } from '../aws/handlers.ts';
import { CheckedEventBus, CheckedWorkflowEngine } from './grants/checkedPorts.ts';
import { installGrants, invokeAs, localGrants } from './grants/enforcement.ts';
import { loadDeployedGrants, type DeployedGrants } from './grants/synthesizedGrants.ts';
// The local runtime is the simulated stage: its providers are the simulators (docs/decisions/121).
import '#simulators/install.ts';
// SES's local stand-in: e-mail becomes .eml files in the outbox (docs/decisions/126).
import './mailOutbox.ts';

/**
 * The whole service in one process: DynamoDB Local (unless DYNAMODB_ENDPOINT points elsewhere),
 * the table from the shared definition, the ASL workflow runner, the stream poller and event
 * bus, and the HTTP adapter over the route table. `npm start` and the end-to-end tests use it.
 */
export interface LocalServiceOptions {
  /** HTTP port; 0 picks a free one. */
  port: number;
  /** Interface the HTTP server listens on: 127.0.0.1 unless told otherwise. */
  host?: string;
  /** Use this DynamoDB instead of spawning DynamoDB Local. */
  dynamoEndpoint?: string;
  /** Port for the spawned DynamoDB Local; 0 picks a free one. */
  dynamoPort?: number;
  /** Keep DynamoDB Local's data here (in memory when absent). */
  dataDir?: string;
  tableName?: string;
  environment?: 'simulated' | 'sandbox' | 'production';
  /** At most this many seconds per Wait (WAIT_MAX_SECONDS: the tasks cap the waits they answer); default 1. */
  waitSeconds?: number;
  /** How long a dead process's executions stay claimed before another process re-drives them. */
  leaseSeconds?: number;
  /** The deployed grants to enforce instead of the synthesized ones (a test plants a missing grant). */
  grants?: DeployedGrants;
}

export interface LocalService {
  url: string;
  dynamoEndpoint: string;
  /** The DynamoDB Local process this service started (none when given an endpoint): the bench reads its CPU time. */
  dynamoPid?: number;
  tableName: string;
  runner: LocalWorkflowRunner;
  bus: LocalEventBus;
  stop(): Promise<void>;
}

const projectRoot = path.resolve(import.meta.dirname, '../..');
/** True once this module chose PUBLIC_BASE_URL itself: a later start in the same process chooses again. */
let publicBaseUrlSetHere = false;

function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
}

export async function startLocalService(options: LocalServiceOptions): Promise<LocalService> {
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error) => console.error('stopping:', error));
  };
  try {
    let dynamo: RunningDynamoDb | undefined;
    let dynamoEndpoint = options.dynamoEndpoint;
    if (!dynamoEndpoint) {
      dynamo = await startDynamoDbLocal({ port: options.dynamoPort || undefined, dataDir: options.dataDir });
      stops.push(() => dynamo!.stop());
      dynamoEndpoint = dynamo.endpoint;
    }
    process.env.DYNAMODB_ENDPOINT = dynamoEndpoint;
    process.env.TABLE_NAME = options.tableName ?? process.env.TABLE_NAME ?? 'payments';
    process.env.SERVICE_ENVIRONMENT = options.environment ?? process.env.SERVICE_ENVIRONMENT ?? 'simulated';
    process.env.SERVICE_VERSION ??= packageVersion();
    process.env.WAIT_MAX_SECONDS = String(options.waitSeconds ?? process.env.WAIT_MAX_SECONDS ?? 1);
    process.env.AWS_ACCESS_KEY_ID ??= 'local';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'local';
    reloadConfig();
    resetDynamoClient();
    await ensureTable(dynamoEndpoint, config().TABLE_NAME, config().AWS_REGION);

    // Every function runs as the simulated stage deploys it: its role, its timeout (docs/decisions/111).
    installGrants(options.grants ?? (await loadDeployedGrants()));

    const bus = new LocalEventBus();
    useEventBus(new CheckedEventBus(bus));
    // From the start of what the stream holds: events written while no process polled (by the
    // admin CLI, or before a restart with DATA_DIR) are delivered too; receivers dedupe on the id.
    // With DATA_DIR, from where the last process left off (its checkpoint, docs/decisions/150).
    const poller = await startStreamPoller({
      tableName: config().TABLE_NAME,
      endpoint: dynamoEndpoint,
      intervalMs: 200,
      startingPosition: 'TRIM_HORIZON',
      filter: outboxStreamFilter,
      ...(dynamo && options.dataDir
        ? { checkpoint: { file: path.join(options.dataDir, 'stream-checkpoint.json'), settled: () => bus.settled() } }
        : {}),
    });
    stops.push(() => poller.stop());

    // The sweep re-drives executions another process abandoned (an admin CLI killed mid-run).
    const runner = new LocalWorkflowRunner({
      resumeIntervalMs: 5_000,
      leaseMs: options.leaseSeconds === undefined ? undefined : options.leaseSeconds * 1000,
    });
    useWorkflowEngine(new CheckedWorkflowEngine(runner));
    stops.push(async () => {
      await runner.stop();
      useWorkflowEngine(undefined);
    });
    // What a killed process left running is taken up at once, beside the start rather than before it:
    // in AWS the executions go on whatever the API does, and a restart with hundreds of them claimed
    // one by one answered nothing for 20 to 40 s (the chaos harness's kills phase).
    void runner.resumeUnfinished().catch((error: unknown) => console.error('re-driving executions:', error));

    // The sweeper AWS runs on a schedule (lib/aws/sweeperSchedule.ts), here on a timer: the same function.
    const { handler: sweep } = await import('../../functions/scheduled/startSweeper.ts');
    let sweeping: Promise<unknown> | undefined;
    const sweeper = setInterval(() => {
      sweeping ??= Promise.resolve()
        .then(() => localGrants()?.checkScheduledInvoke(sweeperHandler))
        .then(() => invokeAs(sweeperHandler, () => sweep()))
        .catch((error: unknown) => console.error('sweeper:', error))
        .finally(() => (sweeping = undefined));
    }, config().SWEEPER_INTERVAL_SECONDS * 1000);
    sweeper.unref();
    stops.push(async () => {
      clearInterval(sweeper);
      await sweeping;
    });

    const http = await startHttpServer({ port: options.port, host: options.host });
    stops.push(() => http.close());
    // Links in e-mails (an invitation's accept link) point at this server unless PUBLIC_BASE_URL says otherwise.
    if (!process.env.PUBLIC_BASE_URL || publicBaseUrlSetHere) {
      process.env.PUBLIC_BASE_URL = http.url;
      publicBaseUrlSetHere = true;
      reloadConfig();
    }

    return {
      url: http.url,
      dynamoEndpoint,
      ...(dynamo?.pid ? { dynamoPid: dynamo.pid } : {}),
      tableName: config().TABLE_NAME,
      runner,
      bus,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
