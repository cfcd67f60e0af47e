import type { TestProject } from 'vitest/node';
import { startDynamoDbLocal, type RunningDynamoDb } from '../../lib/local/dynamodbLocal.ts';
import { loadDeployedGrants } from '../../lib/local/grants/synthesizedGrants.ts';
import { nodeRuntimeProblem } from '../../lib/local/nodeRuntime.ts';

/** Starts one real DynamoDB Local (in memory, random free port) for the whole run, and stops it. */
let dynamo: RunningDynamoDb | undefined;

export async function setup(project: TestProject): Promise<void> {
  // One clear refusal on an older Node, instead of every workflow test failing on its own.
  const problem = nodeRuntimeProblem();
  if (problem) throw new Error(problem);
  // Synthesized once for the run (cached by the tree's digest), before any file starts a service.
  await loadDeployedGrants();
  const endpoint = process.env.TEST_DYNAMODB_ENDPOINT;
  if (endpoint) {
    project.provide('dynamoEndpoint', endpoint);
    return;
  }
  dynamo = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
