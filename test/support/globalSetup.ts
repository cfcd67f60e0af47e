import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type RunningDynamoDb } from '../../lib/local/dynamodbLocal.ts';
import { loadDeployedGrants } from '../../lib/local/grants/synthesizedGrants.ts';
import { nodeRuntimeProblem } from '../../lib/local/nodeRuntime.ts';
import { processAlive } from '../../lib/local/processAlive.ts';

/**
 * Starts one real DynamoDB Local (in memory, random free port) per worker for the whole run, and
 * stops them. One per worker, not one for the run: DynamoDB Local does every table operation on one
 * thread, and one JVM for two workers held that thread at a whole core while the workers waited on
 * it (the machine a third idle); each worker's files now wait on their own (docs/decisions/152).
 * Its database is a file in memory (/dev/shm), not DynamoDB Local's in-memory mode: a file can be
 * given the index on stream records that DynamoDB Local lacks, without which each file's new table
 * paid a walk over the records of every file before it at every call (docs/decisions/162).
 */
let dynamos: RunningDynamoDb[] = [];
let dataDirs: string[] = [];
/** Followed by the run's process id: `payments-test-dynamodb-<pid>-<random>`. */
const dataDirPrefix = 'payments-test-dynamodb-';

export async function setup(project: TestProject): Promise<void> {
  // One clear refusal on an older Node, instead of every workflow test failing on its own.
  const problem = nodeRuntimeProblem();
  if (problem) throw new Error(problem);
  // Synthesized once for the run (cached by the tree's digest), before any file starts a service.
  await loadDeployedGrants();
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (endpoint) {
    project.provide('dynamoEndpoints', [endpoint]);
    return;
  }
  const workers = Math.max(1, project.globalConfig.maxWorkers ?? 1);
  const memory = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  removeDeadRunsData(memory);
  dataDirs = Array.from({ length: workers }, () => mkdtempSync(path.join(memory, `${dataDirPrefix}${process.pid}-`)));
  dynamos = await Promise.all(dataDirs.map((dataDir) => startDynamoDbLocal({ dataDir })));
  project.provide('dynamoEndpoints', dynamos.map((dynamo) => dynamo.endpoint));
}

/**
 * A run killed before its teardown leaves its databases behind, in memory until the next reboot.
 * Each directory names the run's process: those of processes gone are removed, those of a run still
 * going (two runs may share the machine) are left.
 */
function removeDeadRunsData(memory: string): void {
  for (const name of readdirSync(memory)) {
    const owner = name.startsWith(dataDirPrefix) ? /^(\d+)-/.exec(name.slice(dataDirPrefix.length))?.[1] : undefined;
    if (owner && !processAlive(Number(owner))) rmSync(path.join(memory, name), { recursive: true, force: true });
  }
}

export async function teardown(): Promise<void> {
  await Promise.all(dynamos.map((dynamo) => dynamo.stop()));
  for (const dataDir of dataDirs) rmSync(dataDir, { recursive: true, force: true });
}

declare module 'vitest' {
  export interface ProvidedContext {
    /** One per worker: a file uses its worker's (VITEST_POOL_ID, 1 to maxWorkers). */
    dynamoEndpoints: string[];
  }
}
