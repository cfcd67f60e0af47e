import { rmSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type RunningDynamoDb } from '../../lib/local/dynamodbLocal.ts';
import { loadDeployedGrants } from '../../lib/local/grants/synthesizedGrants.ts';
import { nodeRuntimeProblem } from '../../lib/local/nodeRuntime.ts';
import { memoryRoot, runDataDir } from './runData.ts';

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
  const memory = memoryRoot();
  dataDirs = Array.from({ length: workers }, () => runDataDir(memory, 'payments-test-dynamodb-'));
  dynamos = await Promise.all(dataDirs.map((dataDir) => startDynamoDbLocal({ dataDir })));
  project.provide('dynamoEndpoints', dynamos.map((dynamo) => dynamo.endpoint));
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
