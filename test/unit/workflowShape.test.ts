import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflows, type OperationWorkflow } from '#contract/workflows.ts';
import { taskRetry, taskTimeoutSeconds, workflowDefinition } from '#contract/taskRetryPolicy.ts';
import { projectRoot } from '../../lib/build/lambdaBundles.ts';

/**
 * One ASL shape for every money-moving operation, written for the support reader of an execution
 * history (docs/decisions/089): a Task per real step named for what it does, each followed by its
 * own `After<Step>` Choice on the step's outcome (or straight to Done when every outcome ends),
 * Waits named for what they wait for, one `Park<Operation>` Task every other Task catches into,
 * then `<Operation>Parked` (Fail); `Done` (Succeed). Every Task calls the operation's one step
 * function with `{ step, organizationId, [idField] }` and keeps `{ outcome, waitSeconds }` at $.step.
 * No file writes a Task's TimeoutSeconds, Retry or Catch: the one task policy adds them
 * (functions/contract/taskRetryPolicy.ts), Catch into the Park task, which catches nothing.
 */
interface State {
  Type: string;
  Next?: string;
  Default?: string;
  Choices?: { Variable?: string; StringEquals?: string; Next: string }[];
  Parameters?: { FunctionName?: string; Payload?: Record<string, unknown> };
  ResultSelector?: Record<string, string>;
  ResultPath?: string | null;
  SecondsPath?: string;
  TimeoutSeconds?: number;
  Retry?: unknown[];
  Catch?: { ErrorEquals: string[]; ResultPath?: string; Next: string }[];
  End?: boolean;
}

const operations = Object.values(workflows).flatMap((workflow) =>
  'operation' in workflow ? [[workflow.name, workflow as typeof workflow & { operation: OperationWorkflow }] as const] : [],
);

const pascal = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

describe('every money-moving operation has the same workflow shape', () => {
  it('covers the six operations', () => {
    expect(operations.map(([name]) => name).sort()).toEqual(['batch', 'chainDeposit', 'offRamp', 'onRamp', 'payment', 'withdrawal']);
  });

  it.each(operations)('%s', (_name, workflow) => {
    const file = JSON.parse(readFileSync(join(projectRoot, workflow.definition), 'utf8')) as { States: Record<string, State> };
    for (const [name, state] of Object.entries(file.States)) {
      expect([state.TimeoutSeconds, state.Retry, state.Catch], `${name}: the task policy says how a task times out, retries and fails`).toEqual([undefined, undefined, undefined]);
    }
    const { States: states, StartAt: startAt } = workflowDefinition(workflow, projectRoot) as unknown as { States: Record<string, State>; StartAt: string };
    const [task] = Object.keys(workflow.tasks);
    const { idField } = workflow.operation;
    const tasks = Object.entries(states).filter(([, state]) => state.Type === 'Task');
    const parks = tasks.filter(([name]) => name.startsWith('Park'));
    expect(parks, 'one Park task').toHaveLength(1);
    const [parkName, park] = parks[0]!;
    expect(workflow.catchInto, 'the registry names the Park task as where every other Task catches into').toBe(parkName);
    const parked = `${parkName.slice('Park'.length)}Parked`;

    expect(states[startAt]?.Type, 'starts with a step').toBe('Task');
    expect(states.Done?.Type).toBe('Succeed');
    expect(states[parked]?.Type, `${parked} ends a parked run`).toBe('Fail');
    expect(Object.values(states).map((state) => state.Type).filter((type) => !['Task', 'Choice', 'Wait', 'Succeed', 'Fail'].includes(type))).toEqual([]);

    for (const [name, state] of tasks) {
      const payload = state.Parameters?.Payload ?? {};
      expect(state.Parameters?.FunctionName, name).toBe(`\${${task}}`);
      expect(typeof payload.step, `${name} names its step`).toBe('string');
      expect(payload['organizationId.$'], name).toBe('$.organizationId');
      expect(payload[`${idField}.$`], name).toBe(`$.${idField}`);
      expect(state.Retry, `${name} retries like every step`).toEqual(taskRetry);
      expect(state.TimeoutSeconds, name).toBe(taskTimeoutSeconds);
      if (name === parkName) {
        expect(state.Catch, 'the Park task catches nothing: a failure there fails the execution').toBeUndefined();
        continue;
      }
      // A step may also keep its one-line `report` for the history's reader (the batch says which items started and failed).
      const { 'report.$': report, ...selector } = state.ResultSelector ?? {};
      expect(selector, name).toEqual({ 'outcome.$': '$.Payload.outcome', 'waitSeconds.$': '$.Payload.waitSeconds' });
      if (report !== undefined) expect(report, name).toBe('$.Payload.report');
      expect(state.ResultPath, name).toBe('$.step');
      expect(state.Catch, `${name} parks what it did not expect`).toEqual([{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: parkName }]);
      expect([`After${pascal(name)}`, 'Done'], `${name} goes to its own Choice or ends`).toContain(state.Next);
    }
    expect(park.Parameters?.Payload).toMatchObject({ step: 'park', 'error.$': '$.error' });
    expect(park.ResultPath).toBeNull();
    expect(park.Next).toBe(parked);

    for (const [name, state] of Object.entries(states)) {
      if (state.Type === 'Choice') {
        expect(name, 'a Choice follows the step it routes').toMatch(/^After[A-Z]/);
        expect(states[name.slice('After'.length)]?.Type, `${name} follows a Task of that name`).toBe('Task');
        for (const choice of state.Choices ?? []) {
          expect(choice.Variable, name).toBe('$.step.outcome');
          expect(typeof choice.StringEquals, name).toBe('string');
          expect(states[choice.Next], `${name} → ${choice.Next}`).toBeDefined();
        }
        expect(state.Default, name).toBe('Done');
      }
      if (state.Type === 'Wait') {
        expect(name, 'a Wait says what it waits for').toMatch(/^Wait(For|Before)[A-Z]/);
        expect(state.SecondsPath, name).toBe('$.step.waitSeconds');
        expect(states[state.Next!]?.Type, `${name} goes back to a step`).toBe('Task');
      }
    }
  });
});
