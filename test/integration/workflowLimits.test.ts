import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidName, ValidationException } from '@aws-sdk/client-sfn';
import { useFreshTable } from '../support/table.ts';
import { ran } from '../fixtures/workflows/limitsTask.ts';
import { LocalWorkflowRunner } from '../../lib/local/workflowRunner.ts';
import { historyEventsLimit, payloadLimitBytes } from '../../lib/local/stepFunctionsLimits.ts';
import type { WorkflowDefinition } from '#contract/workflows.ts';
import { getExecution } from '#store/executions.ts';

/**
 * Step Functions' quotas on the local runner, each crossed: 256 KiB (262,144 bytes of UTF-8) per
 * execution input, state output and task payload, and 25,000 history events per execution. The
 * workflows are test fixtures (test/fixtures/workflows) run by the real runner on DynamoDB Local;
 * every Task of them catches States.ALL, which a quota's error gets past, as in AWS.
 */
const workflows: Record<string, WorkflowDefinition> = {
  limits: { name: 'limits', definition: 'test/fixtures/workflows/limits.asl.json', tasks: { LimitsTask: { handler: 'test/fixtures/workflows/limitsTask.ts' } } },
  spin: { name: 'spin', definition: 'test/fixtures/workflows/spin.asl.json', tasks: {} },
};

let runner: LocalWorkflowRunner;
let seq = 0;
const nameOf = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;
const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** `fields` padded to exactly `bytes` bytes of JSON, mostly with 'é' (two bytes, one character). */
function inputOf(bytes: number, fields: Record<string, unknown>): Record<string, unknown> {
  const room = bytes - bytesOf({ ...fields, pad: '' });
  const input = { ...fields, pad: 'é'.repeat(Math.floor(room / 2)) + 'x'.repeat(room % 2) };
  expect(bytesOf(input)).toBe(bytes);
  return input;
}

beforeAll(async () => {
  await useFreshTable('limits');
  runner = new LocalWorkflowRunner({ workflows, retryIntervalOverrideMs: 0 });
});
afterAll(async () => {
  await runner?.stop();
});

describe("StartExecution's name", () => {
  it('takes 80 characters and refuses 81 with ValidationException, and a name with a character Step Functions refuses with InvalidName, starting nothing', async () => {
    const longest = `${nameOf('name')}-`.padEnd(80, 'n');
    await runner.startExecution('limits', longest, { scenario: 'mark', marker: longest });
    expect(await runner.waitFor(longest, 30_000, 'limits')).toMatchObject({ status: 'SUCCEEDED' });

    const tooLong = `${longest}n`;
    await expect(runner.startExecution('limits', tooLong, { scenario: 'mark', marker: tooLong })).rejects.toBeInstanceOf(ValidationException);
    const colon = `${nameOf('name')}:pix`;
    await expect(runner.start('limits' as never, colon, { scenario: 'mark', marker: colon })).rejects.toBeInstanceOf(InvalidName);
    expect(await getExecution(tooLong, 'limits')).toBeUndefined();
    expect(await getExecution(colon, 'limits')).toBeUndefined();
    expect(ran().has(tooLong) || ran().has(colon)).toBe(false);
  });
});

describe("Step Functions' 256 KiB payload quota", () => {
  it('StartExecution takes an input of exactly 262,144 bytes of UTF-8 and refuses one byte more with ValidationException, starting nothing', async () => {
    const fits = nameOf('fits');
    await runner.startExecution('limits', fits, inputOf(payloadLimitBytes, { scenario: 'mark', marker: fits }));
    expect(await runner.waitFor(fits, 30_000, 'limits')).toMatchObject({ status: 'SUCCEEDED', history: ['Route', 'Mark', 'Done'] });
    expect(ran().has(fits)).toBe(true);
    expect((await getExecution(fits, 'limits'))?.largestPayloadBytes).toBe(payloadLimitBytes);

    const over = nameOf('over');
    const tooBig = inputOf(payloadLimitBytes + 1, { scenario: 'mark', marker: over });
    // Far fewer characters than the quota: it counts bytes.
    expect(JSON.stringify(tooBig).length).toBeLessThan(payloadLimitBytes * 0.6);
    const refused = await runner.startExecution('limits', over, tooBig).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationException);
    expect((refused as Error).message).toContain('262144');
    await expect(runner.start('limits' as never, over, tooBig)).rejects.toBeInstanceOf(ValidationException);
    expect(await getExecution(over, 'limits')).toBeUndefined();
  });

  it('fails the execution with States.DataLimitExceeded when a task returns more, though its ResultSelector keeps a number of it, past the Catch of States.ALL', async () => {
    const name = nameOf('result');
    // 140,000 characters, 280,000 bytes; the state would keep only their count.
    await runner.startExecution('limits', name, { scenario: 'measure', count: 140_000, char: 'é', marker: name });
    const outcome = await runner.waitFor(name, 30_000, 'limits');
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded', history: ['Route', 'Measure'] });
    expect(outcome.cause).toContain("'Measure' returned a result with a size exceeding the maximum number of bytes service limit");
    const types = (await runner.history('limits', name))!.map((event) => event.type);
    expect(types.slice(-3)).toEqual(['TaskStarted', 'TaskFailed', 'ExecutionFailed']);
    expect(ran().has(name)).toBe(false);
    // Under the quota, the same state passes.
    const fits = nameOf('result-fits');
    await runner.startExecution('limits', fits, { scenario: 'measure', count: 130_000, char: 'é', marker: fits });
    expect(await runner.waitFor(fits, 30_000, 'limits')).toMatchObject({ status: 'SUCCEEDED', history: ['Route', 'Measure', 'Mark', 'Done'] });
  });

  it("fails it when a state's output passes the quota though each task's result fits, and the next state never runs", async () => {
    const name = nameOf('output');
    // Two results of 140,000 bytes each: the second state's output holds both.
    await runner.startExecution('limits', name, { scenario: 'produce', count: 70_000, char: 'é', marker: name });
    const outcome = await runner.waitFor(name, 30_000, 'limits');
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded', history: ['Route', 'Produce', 'ProduceAgain'] });
    expect(outcome.cause).toContain("'ProduceAgain'");
    const events = (await runner.history('limits', name))!;
    expect(events.at(-1)).toMatchObject({ type: 'ExecutionFailed', executionFailedEventDetails: { error: 'States.DataLimitExceeded' } });
    expect(ran().has(name)).toBe(false);
  });

  it('passes state data just under the quota through, and records the largest payload it carried', async () => {
    const name = nameOf('under');
    await runner.startExecution('limits', name, { scenario: 'produce', count: 65_000, char: 'é', marker: name });
    expect(await runner.waitFor(name, 30_000, 'limits')).toMatchObject({ status: 'SUCCEEDED', history: ['Route', 'Produce', 'ProduceAgain', 'Mark', 'Done'] });
    expect(ran().has(name)).toBe(true);
    const largest = (await getExecution(name, 'limits'))?.largestPayloadBytes ?? 0;
    expect(largest).toBeGreaterThan(260_000);
    expect(largest).toBeLessThanOrEqual(payloadLimitBytes);
  });

  it("refuses a task's Lambda payload past the quota after Parameters, before the function runs", async () => {
    const name = nameOf('payload');
    // The state's input is 140 KB; its Parameters send the blob twice.
    await runner.startExecution('limits', name, { scenario: 'double', blob: 'x'.repeat(140_000), marker: name });
    const outcome = await runner.waitFor(name, 30_000, 'limits');
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'States.DataLimitExceeded', history: ['Route', 'Double'] });
    expect(outcome.cause).toContain("'Double' has an input");
    expect(ran().has(name)).toBe(false);
  });
});

describe("Step Functions' 25,000 history events", () => {
  it('fails an execution that reaches them with States.Runtime, its history closed at the 25,000th event', async () => {
    const name = nameOf('spin');
    await runner.startExecution('spin', name, {});
    const outcome = await runner.waitFor(name, 120_000, 'spin');
    expect(outcome).toMatchObject({ status: 'FAILED', error: 'States.Runtime', cause: `The execution reached the maximum number of history events (${historyEventsLimit}).` });
    const record = (await getExecution(name, 'spin'))!;
    expect(record.events?.at(-1)).toMatchObject({ id: historyEventsLimit, type: 'ExecutionFailed', executionFailedEventDetails: { error: 'States.Runtime' } });
    expect((record.events?.length ?? 0) + (record.droppedEvents ?? 0)).toBe(historyEventsLimit);
  }, 150_000);
});
