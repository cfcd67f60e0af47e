import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflows } from '#contract/workflows.ts';
import { workflowDefinition } from '#contract/taskRetryPolicy.ts';
import { projectRoot } from '../../lib/build/lambdaBundles.ts';
import { taskFunctionTimeoutSeconds } from '../../lib/aws/workflowStack.ts';

/**
 * The ASL files are the single source of every workflow: the CDK stack deploys them and the local
 * runner executes them, each with the one task policy added (functions/contract/taskRetryPolicy.ts).
 * What deploys must be valid ASL (a file alone is not: its catch state is reached only by the
 * policy's Catch), and a file's `${Task}` placeholders must be exactly the
 * task keys of the registry entry that names it (a placeholder without a task would deploy
 * unsubstituted; a task without a placeholder is a Lambda nothing calls).
 */
interface ValidationResult {
  isValid: boolean;
  errorsText: (separator?: string) => string;
}
// asl-validator is CommonJS without type declarations.
const aslValidator = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => ValidationResult;

const directory = join(projectRoot, 'statemachines');
const files = readdirSync(directory).filter((name) => name.endsWith('.asl.json')).sort();
const registry = Object.values(workflows);

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\$\{([^}]+)\}/g)].map((match) => match[1]!))].sort();
}

describe('state machine definitions', () => {
  it('exist, one per registry entry', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const workflow of registry) expect(files).toContain(workflow.definition.replace(/^statemachines\//, ''));
  });

  it.each(files)('%s with the task policy is valid ASL', (file) => {
    // The validator annotates the object it is given; it gets a fresh load.
    const result = aslValidator(workflowDefinition(registry.find((workflow) => workflow.definition === `statemachines/${file}`)!, projectRoot));
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it.each(files)('%s uses exactly the tasks of the workflow that names it', (file) => {
    const owners = registry.filter((workflow) => workflow.definition === `statemachines/${file}`);
    expect(owners.map((workflow) => workflow.name), `${file} must be named by exactly one workflow`).toHaveLength(1);
    const text = readFileSync(join(directory, file), 'utf8');
    expect(placeholders(text)).toEqual(Object.keys(owners[0]!.tasks).sort());
  });
});

/**
 * What a Task of `arn:aws:states:::lambda:invoke` really fails with in AWS, and what must follow
 * (docs/decisions/080). `transient`: the call never ran our code, or a store call was refused for
 * load: retried with backoff. `interrupted`: the function was cut off (timed out, out of memory,
 * crashed) and may have done part of its step: run again, which every step survives since it acts
 * only from the stage it recorded and asks a provider by reference before ever calling it twice;
 * retried a few times, then parked. `ours`: an error of the step itself: never retried, caught and
 * parked for a person.
 */
const awsErrors: Record<string, 'transient' | 'interrupted' | 'ours'> = {
  'Lambda.ServiceException': 'transient',
  'Lambda.AWSLambdaException': 'transient',
  'Lambda.SdkClientException': 'transient',
  'Lambda.TooManyRequestsException': 'transient',
  'Lambda.ClientExecutionTimeoutException': 'transient',
  ThrottlingException: 'transient',
  ProvisionedThroughputExceededException: 'transient',
  RequestLimitExceeded: 'transient',
  InternalServerError: 'transient',
  TransactionConflictException: 'transient',
  TransactionCanceledException: 'transient',
  TimeoutError: 'transient',
  'Lambda.Unknown': 'interrupted',
  'Sandbox.Timedout': 'interrupted',
  'States.Timeout': 'interrupted',
  'States.TaskFailed': 'ours',
  'States.Runtime': 'ours',
  Error: 'ours',
  TypeError: 'ours',
  ZodError: 'ours',
  ValidationException: 'ours',
  ConditionalCheckFailedException: 'ours',
  ResourceNotFoundException: 'ours',
  'Lambda.ResourceNotFoundException': 'ours',
  PayoutUnanswered: 'ours',
};

interface Retrier { ErrorEquals: string[]; MaxAttempts?: number; IntervalSeconds?: number }
interface TaskState { Type: 'Task'; TimeoutSeconds?: number; Retry?: Retrier[]; Catch?: { ErrorEquals: string[] }[] }

const taskStates = registry.flatMap((workflow) => Object.entries(workflowDefinition(workflow, projectRoot).States)
  .filter(([, state]) => state.Type === 'Task')
  .map(([name, state]) => [`${workflow.definition} ${name}`, state as TaskState] as const));

/** The retrier Step Functions picks for an error: the first whose ErrorEquals names it or States.ALL. */
function retrierFor(state: TaskState, error: string): Retrier | undefined {
  return state.Retry?.find((retrier) => retrier.ErrorEquals.includes(error) || (retrier.ErrorEquals.includes('States.ALL') && !error.startsWith('States.Runtime')));
}

describe('task retries', () => {
  it.each(taskStates)('%s retries what AWS raises for a passing fault, and nothing of its own', (_name, state) => {
    expect(state.Retry?.length).toBeGreaterThan(0);
    for (const [error, kind] of Object.entries(awsErrors)) {
      const retrier = retrierFor(state, error);
      const attempts = retrier ? (retrier.MaxAttempts ?? 3) : 0;
      if (kind === 'transient') expect(attempts, error).toBeGreaterThanOrEqual(3);
      if (kind === 'interrupted') expect(attempts, error).toBeGreaterThanOrEqual(1);
      if (kind === 'interrupted') expect(attempts, `${error}: a step cut off again and again is parked, not retried for ever`).toBeLessThanOrEqual(3);
      if (kind === 'ours') expect(attempts, error).toBe(0);
    }
    // Every name a retrier lists is one AWS or our store raises (a typo would never match).
    const known = new Set([...Object.keys(awsErrors), 'ProviderUnavailable']);
    for (const retrier of state.Retry ?? []) for (const error of retrier.ErrorEquals) expect(known, error).toContain(error);
  });

  it.each(taskStates)('%s names States.ALL only alone and last, as Step Functions requires', (_name, state) => {
    for (const list of [state.Retry ?? [], state.Catch ?? []]) {
      list.forEach((entry, index) => {
        if (entry.ErrorEquals.includes('States.ALL')) expect([entry.ErrorEquals.length, index]).toEqual([1, list.length - 1]);
      });
    }
  });

  it.each(taskStates)('%s gives the function time to fail on its own timeout first', (_name, state) => {
    // Above the function's timeout: a stuck function ends as Sandbox.Timedout (its own error),
    // not as States.Timeout on an invocation that may still be running.
    expect(state.TimeoutSeconds).toBeGreaterThan(taskFunctionTimeoutSeconds);
    expect(state.TimeoutSeconds).toBeLessThanOrEqual(taskFunctionTimeoutSeconds * 3);
  });
});
