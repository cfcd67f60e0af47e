import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InvalidName, SFNClient, ValidationException } from '@aws-sdk/client-sfn';
import { useFreshTable } from '../support/table.ts';
import { until } from '../support/eventually.ts';
import { startFakeStepFunctions, type FakeStepFunctions } from '../support/fakeStepFunctions.ts';
import { LocalWorkflowRunner } from '../../lib/local/workflowRunner.ts';
import { payloadLimitBytes } from '../../lib/local/stepFunctionsLimits.ts';
import { StepFunctionsEngine, startClockSkewMs } from '#platform/workflowStepFunctions.ts';
import type { WorkflowDefinition, WorkflowName } from '#contract/workflows.ts';
import { getExecution } from '#store/executions.ts';

/**
 * The Step Functions adapter every deployed function starts workflows through
 * (functions/platform/workflowStepFunctions.ts), which only AWS ran: here the real SDK client
 * reaches, through AWS_ENDPOINT_URL_SFN as in Lambda, a stand-in speaking Step Functions' JSON 1.0
 * protocol whose answers are the local runner's (test/support/fakeStepFunctions.ts). So what the
 * adapter reads off the wire is checked: a repeat told apart by its startDate (epoch seconds),
 * ExecutionAlreadyExists by its type, history across pages.
 */
const prefix = 'arn:aws:states:eu-west-1:123456789012:stateMachine:payments-production-';
const workflows: Record<string, WorkflowDefinition> = {
  hold: { name: 'hold', definition: 'test/fixtures/workflows/hold.asl.json', tasks: {} },
};
const hold = 'hold' as WorkflowName;

let runner: LocalWorkflowRunner;
let stepFunctions: FakeStepFunctions;
let engine: StepFunctionsEngine;
let seq = 0;
const nameOf = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;

beforeAll(async () => {
  await useFreshTable('sfnProtocol');
  runner = new LocalWorkflowRunner({ workflows });
  stepFunctions = await startFakeStepFunctions(runner, { machinePrefix: prefix, pageSize: 2 });
  vi.stubEnv('AWS_ENDPOINT_URL_SFN', stepFunctions.url);
  vi.stubEnv('AWS_REGION', 'eu-west-1');
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAEXAMPLE');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'example');
  // Configured as in Lambda, from the environment alone.
  engine = new StepFunctionsEngine(prefix, new SFNClient({}));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await runner?.stop();
  await stepFunctions?.stop();
});

describe('StepFunctionsEngine over the Step Functions protocol', () => {
  it('starts an execution; tells a repeat while it runs from a start by the startDate on the wire; takes ExecutionAlreadyExists for other input or once it has ended', async () => {
    const name = nameOf('held');
    expect(await engine.start(hold, name, { seconds: 4 })).toEqual({ executionName: name, started: true });
    const sent = stepFunctions.requests.at(-1)!;
    expect(sent).toEqual({ operation: 'StartExecution', input: { stateMachineArn: `${prefix}hold`, name, input: '{"seconds":4}' } });

    // Past the allowance for Step Functions' clock, a success naming the running execution is a repeat.
    const startedAt = (await getExecution(name, 'hold'))!.startedAt;
    await until(async () => Date.now(), (now) => now > new Date(startedAt).getTime() + startClockSkewMs, { what: 'the clock past the skew allowance', intervalMs: 50 });
    expect(await engine.start(hold, name, { seconds: 4 })).toEqual({ executionName: name, started: false });
    expect(await engine.start(hold, name, { seconds: 5 })).toEqual({ executionName: name, started: false });
    expect((await getExecution(name, 'hold'))!.status).toBe('RUNNING');

    const ended = nameOf('ended');
    expect(await engine.start(hold, ended, { seconds: 0 })).toEqual({ executionName: ended, started: true });
    expect(await runner.waitFor(ended, 30_000, 'hold')).toMatchObject({ status: 'SUCCEEDED' });
    expect(await engine.start(hold, ended, { seconds: 0 })).toEqual({ executionName: ended, started: false });
    // Five starts, each a request on the wire: the adapter told each outcome from Step Functions' answer.
    expect(stepFunctions.requests.filter((request) => request.operation === 'StartExecution')).toHaveLength(5);
  });

  it("fails a start Step Functions refuses with its own exceptions: an input over 256 KiB, a name it does not take", async () => {
    const big = nameOf('big');
    await expect(engine.start(hold, big, { seconds: 0, pad: 'x'.repeat(payloadLimitBytes) })).rejects.toBeInstanceOf(ValidationException);
    await expect(engine.start(hold, `${nameOf('bad')}:name`, { seconds: 0 })).rejects.toBeInstanceOf(InvalidName);
    expect(await getExecution(big, 'hold')).toBeUndefined();
  });

  it('reads the whole history across pages, oldest first, with the times the runner recorded; undefined for an execution that does not exist', async () => {
    const name = nameOf('history');
    await engine.start(hold, name, { seconds: 0 });
    expect(await runner.waitFor(name, 30_000, 'hold')).toMatchObject({ status: 'SUCCEEDED' });
    const recorded = (await runner.history('hold', name))!;
    expect(recorded.length).toBeGreaterThan(2);

    const before = stepFunctions.requests.length;
    const read = await engine.history(hold, name);
    expect(read?.map(({ id, type, timestamp }) => ({ id, type, timestamp }))).toEqual(recorded.map(({ id, type, timestamp }) => ({ id, type, timestamp })));
    expect(read?.at(-1)?.type).toBe('ExecutionSucceeded');
    // Pages of two: every page asked for, each after the one before.
    const pages = stepFunctions.requests.slice(before);
    expect(pages).toHaveLength(Math.ceil(recorded.length / 2));
    expect(pages.map((page) => page.input.nextToken ?? null)).toEqual(pages.map((_, index) => (index === 0 ? null : String(index * 2))));

    expect(await engine.history(hold, nameOf('never'))).toBeUndefined();
  });
});
