import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowDefinition } from './workflows.ts';

/**
 * How every Task state of every workflow times out, retries and fails (docs/decisions/080, 119),
 * written once: the ASL files of statemachines/ say what each workflow does, and
 * `workflowDefinition` adds this to each Task that does not declare its own. The CDK workflow stack
 * deploys and the local runner runs what `workflowDefinition` returns, so both run one definition
 * (test/unit/cdk.test.ts compares them).
 *
 * A Task keeps any of `TimeoutSeconds`, `Retry`, `Catch` it declares itself, field by field and
 * unmerged, so a difference is written where it applies (wallet provisioning's CreateWallet retries
 * ProviderUnavailable).
 */

/** Above the task function's own timeout (lib/aws/workflowStack.ts): a stuck function fails as Sandbox.Timedout first. */
export const taskTimeoutSeconds = 60;

export const taskRetry = [
  {
    // Transient: the call never ran our code, or a store call was refused for load.
    ErrorEquals: [
      'Lambda.ServiceException',
      'Lambda.AWSLambdaException',
      'Lambda.SdkClientException',
      'Lambda.TooManyRequestsException',
      'Lambda.ClientExecutionTimeoutException',
      'ThrottlingException',
      'ProvisionedThroughputExceededException',
      'RequestLimitExceeded',
      'InternalServerError',
      'TransactionConflictException',
      'TransactionCanceledException',
      'TimeoutError',
    ],
    IntervalSeconds: 1,
    MaxAttempts: 6,
    BackoffRate: 2,
    MaxDelaySeconds: 30,
    JitterStrategy: 'FULL',
  },
  {
    // Interrupted: the step may have done part of its work; every step survives running again.
    ErrorEquals: ['Lambda.Unknown', 'Sandbox.Timedout', 'States.Timeout'],
    IntervalSeconds: 5,
    MaxAttempts: 2,
    BackoffRate: 2,
    JitterStrategy: 'FULL',
  },
];

/** Anything else, and what the retries gave up on, goes to the workflow's `catchInto` state with the error at $.error. */
export function taskCatch(catchInto: string) {
  return [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: catchInto }];
}

export interface AslState {
  Type: string;
  TimeoutSeconds?: number;
  Retry?: unknown[];
  Catch?: unknown[];
  [field: string]: unknown;
}

export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
  [field: string]: unknown;
}

/**
 * The definition of a workflow as it deploys and runs: its ASL file with the task policy added to
 * every Task (`${Task}` placeholders left for the engine to fill). The catch state itself gets no
 * Catch: a failure there fails the execution.
 */
export function workflowDefinition(workflow: WorkflowDefinition, projectRoot: string): AslDefinition {
  const definition = JSON.parse(readFileSync(join(projectRoot, workflow.definition), 'utf8')) as AslDefinition;
  const states = Object.fromEntries(Object.entries(definition.States).map(([name, state]) => {
    if (state.Type !== 'Task') return [name, state];
    const policy: Partial<AslState> = { TimeoutSeconds: taskTimeoutSeconds, Retry: structuredClone(taskRetry) };
    if (workflow.catchInto !== undefined && name !== workflow.catchInto) policy.Catch = taskCatch(workflow.catchInto);
    return [name, { ...state, ...policy, ...declared(state) }];
  }));
  return { ...definition, States: states };
}

/** What a Task says itself of the policy's fields. */
function declared(state: AslState): Partial<AslState> {
  return Object.fromEntries((['TimeoutSeconds', 'Retry', 'Catch'] as const).filter((field) => state[field] !== undefined).map((field) => [field, state[field]]));
}
