import { spawnSync } from 'node:child_process';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExecutionAlreadyExists, SFNClient } from '@aws-sdk/client-sfn';
import { PutCommand, ScanCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { LocalWorkflowRunner } from '../../lib/local/workflowRunner.ts';
import { StepFunctionsEngine, startClockSkewMs, startedByThisCall, stateMachineArn } from '#platform/workflowStepFunctions.ts';
import { executionName } from '#platform/workflow.ts';
import { reloadConfig } from '#platform/config.ts';
import { dynamo, dynamoCallCount, tableName } from '#store/client.ts';
import { executionEntity, getExecution, runningExecutionsKey } from '#store/executions.ts';
import { keys } from '#store/keys.ts';
import { outboxEntity, type OutboxEvent } from '#store/outbox.ts';
import { getWallet, getWalletByExternalId, newWalletId, walletItem, type Wallet } from '#store/wallets.ts';
import { until as waitUntil } from '../support/eventually.ts';

/** A provisioning home wallet, written as the admin CLI writes it. */
async function provisioningWallet(organizationId: string): Promise<string> {
  const walletId = newWalletId();
  await dynamo().send(new TransactWriteCommand({ TransactItems: [walletItem({ organizationId, walletId, home: true })] }));
  return walletId;
}

async function activatedEventsFor(walletId: string): Promise<OutboxEvent<Wallet>[]> {
  const events: OutboxEvent<Wallet>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(
      new ScanCommand({
        TableName: tableName(),
        FilterExpression: 'entity = :entity',
        ExpressionAttributeValues: { ':entity': outboxEntity },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const event = item.event as OutboxEvent<Wallet>;
      if (event.type === 'wallet.activated' && event.data.id === walletId) events.push(event);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return events;
}

/** Puts and updates of one execution's record, from now until stop(). */
function countExecutionWrites(name: string) {
  const counts = { puts: 0, updates: 0 };
  dynamo().middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as { Item?: { pk?: unknown }; Key?: { pk?: unknown } };
      const pk = input.Item?.pk ?? input.Key?.pk;
      if (pk === keys.execution(name, 'walletProvisioning').pk) {
        if (input.Item) counts.puts += 1;
        else if ('UpdateExpression' in (args.input as object)) counts.updates += 1;
      }
      return next(args);
    },
    { step: 'initialize', name: `count-${name}` },
  );
  return Object.assign(counts, { stop: () => dynamo().middlewareStack.remove(`count-${name}`) });
}

/** `false` counts as not yet, as undefined does. */
const until = async <T>(probe: () => T | undefined | Promise<T | undefined>, what: string, timeoutMs = 10_000): Promise<T> =>
  (await waitUntil(async () => probe(), (value) => value !== undefined && value !== false, { what, timeoutMs, intervalMs: 20 })) as T;

/** WAIT_MAX_SECONDS for the tasks this process runs (undefined: no cap, as in AWS). */
function waitCap(value: string | undefined) {
  if (value === undefined) delete process.env.WAIT_MAX_SECONDS;
  else process.env.WAIT_MAX_SECONDS = value;
  reloadConfig();
}

describe('walletProvisioning on the local runner', () => {
  const runners: LocalWorkflowRunner[] = [];
  const runner = (options: ConstructorParameters<typeof LocalWorkflowRunner>[0] = {}) => {
    const created = new LocalWorkflowRunner({ retryIntervalOverrideMs: 0, ...options });
    runners.push(created);
    return created;
  };

  beforeAll(async () => {
    await useFreshTable('workflows');
  });
  afterAll(async () => {
    await Promise.all(runners.map((each) => each.stop()));
  });

  it('opens the wallet and activates it with one wallet.activated event', async () => {
    const engine = runner();
    const organizationId = 'org_wf1';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);

    const started = await engine.start('walletProvisioning', name, { organizationId, walletId, activationWaitSeconds: 1 });
    expect(started).toEqual({ executionName: name, started: true });
    const outcome = await engine.waitFor(name);

    expect(outcome.status).toBe('SUCCEEDED');
    expect(outcome.history).toEqual(['CreateWallet', 'WaitForActivation', 'ActivateWallet']);
    const wallet = await getWallet(organizationId, walletId);
    expect(wallet).toMatchObject({ status: 'active', chain: 'base', kind: 'wallet', provider: 'simulated-custody', home: true });
    expect(wallet?.address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(wallet?.externalId).toMatch(/^sim-wal-[0-9a-f]+$/);
    expect(outcome.output).toMatchObject({ id: walletId, status: 'active', address: wallet?.address });
    expect(await getWalletByExternalId(organizationId, wallet!.externalId!)).toMatchObject({ id: walletId });
    expect(await getWalletByExternalId('org_other', wallet!.externalId!)).toBeUndefined();

    const events = await activatedEventsFor(walletId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ organizationId, data: { id: walletId, status: 'active', address: wallet?.address } });

    // Finished executions leave the index of running ones.
    const record = await dynamo().send(new ScanCommand({
      TableName: tableName(),
      FilterExpression: 'entity = :entity AND #name = :name',
      ExpressionAttributeNames: { '#name': 'name' },
      ExpressionAttributeValues: { ':entity': executionEntity, ':name': name },
    }));
    expect(record.Items?.[0]?.gsi2pk).toBeUndefined();
  });

  it('refuses a second start of the same execution name and runs nothing', async () => {
    const engine = runner();
    const organizationId = 'org_wf2';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);
    const input = { organizationId, walletId, activationWaitSeconds: 0 };

    const [first, second] = await Promise.all([
      engine.start('walletProvisioning', name, input),
      engine.start('walletProvisioning', name, input),
    ]);
    expect([first.started, second.started].sort()).toEqual([false, true]);
    await engine.waitFor(name);
    const third = await engine.start('walletProvisioning', name, input);
    expect(third).toEqual({ executionName: name, started: false });
    await engine.idle();

    expect((await getExecution(name))?.drives).toBe(1);
    expect(await activatedEventsFor(walletId)).toHaveLength(1);
  });

  it('re-drives an execution a stopped runner left in its Wait, exactly once', async () => {
    // The crashed runner's task answers the whole hour; its successors' answer 0 (WAIT_MAX_SECONDS).
    waitCap(undefined);
    const crashed = runner();
    const organizationId = 'org_wf3';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);

    await crashed.start('walletProvisioning', name, { organizationId, walletId, activationWaitSeconds: 3600 });
    await until(() => crashed.currentState(name) === 'WaitForActivation' || undefined, 'the Wait state');
    await crashed.stop();
    waitCap('0');

    expect((await getExecution(name))?.status).toBe('RUNNING');
    // Its lease ended with the stop: a runner of another process (which cannot see this process's
    // runners) takes it up at its next sweep, not once the lease would have run out.
    expect((await getExecution(name))!.leaseExpiresAt).toBeLessThanOrEqual(Date.now());
    // Stopped within a second of reaching the Wait: the history holds the start it was created with.
    expect((await getExecution(name))?.events?.map((event) => event.type)).toEqual(['ExecutionStarted']);
    expect((await getWallet(organizationId, walletId))?.status).toBe('provisioning');

    // Two new runners race to take it over; the conditional claim lets only one drive it.
    const [first, second] = [runner(), runner()];
    const [resumedByFirst, resumedBySecond] = await Promise.all([first.resumeUnfinished(), second.resumeUnfinished()]);
    expect([...resumedByFirst, ...resumedBySecond]).toEqual([name]);
    const outcome = await (resumedByFirst.length ? first : second).waitFor(name);

    expect(outcome).toMatchObject({ status: 'SUCCEEDED', drives: 2 });
    // As its record reads (the runner that drove it answers from memory).
    expect(outcome).toEqual(await runner().waitFor(name));
    const types = (await first.history('walletProvisioning', name))!.map((event) => event.type);
    expect([types.slice(0, 3), types.at(-1)]).toEqual([['ExecutionStarted', 'ExecutionRedriven', 'TaskStateEntered'], 'ExecutionSucceeded']);
    expect((await getWallet(organizationId, walletId))?.status).toBe('active');
    expect(await activatedEventsFor(walletId)).toHaveLength(1);
    expect(await first.resumeUnfinished()).toEqual([]);
  });

  it('re-drives a RUNNING record whose lease expired or whose process died, and leaves a live one alone', async () => {
    const organizationId = 'org_wf4';
    const expiredWallet = await provisioningWallet(organizationId);
    const liveWallet = await provisioningWallet(organizationId);
    const deadProcessWallet = await provisioningWallet(organizationId);
    const foreign = { ownerId: 'elsewhere-runner', ownerHost: 'some-other-host', ownerPid: 1 };
    // A process of this host that has exited: its lease has not run out, but nobody renews it.
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    const put = (walletId: string, leaseExpiresAt: number, owner = foreign) => {
      const name = executionName(organizationId, walletId);
      const now = new Date().toISOString();
      return dynamo().send(new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.execution(name, 'walletProvisioning'), entity: executionEntity, name, workflow: 'walletProvisioning',
          input: { organizationId, walletId, activationWaitSeconds: 0 }, status: 'RUNNING', ...owner,
          leaseExpiresAt, drives: 1, startedAt: now, updatedAt: now, gsi2pk: runningExecutionsKey, gsi2sk: `${now}#${name}`,
        },
      }));
    };
    await put(expiredWallet, Date.now() - 1_000);
    await put(liveWallet, Date.now() + 60_000);
    await put(deadProcessWallet, Date.now() + 60_000, { ownerId: 'crashed-runner', ownerHost: hostname(), ownerPid: deadPid });

    const engine = runner();
    const resumed = await engine.resumeUnfinished();
    expect(resumed.sort()).toEqual([executionName(organizationId, expiredWallet), executionName(organizationId, deadProcessWallet)].sort());
    expect(await engine.waitFor(executionName(organizationId, deadProcessWallet))).toMatchObject({ status: 'SUCCEEDED', drives: 2 });

    expect(await engine.waitFor(executionName(organizationId, expiredWallet))).toMatchObject({ status: 'SUCCEEDED', drives: 2 });
    expect(await activatedEventsFor(expiredWallet)).toHaveLength(1);
    expect((await getExecution(executionName(organizationId, liveWallet)))?.status).toBe('RUNNING');
    expect((await getWallet(organizationId, liveWallet))?.status).toBe('provisioning');
  });

  it('reads and claims several abandoned executions at once, so a pass ends before the next crash', async () => {
    // After a kill of the chaos run there are hundreds; read and claimed one by one under the load of
    // those already re-driven, a pass outlasted the next kill and the tail of the list was never taken.
    const organizationId = 'org_wf5';
    const now = new Date().toISOString();
    const wallets = await Promise.all(Array.from({ length: 24 }, () => provisioningWallet(organizationId)));
    const names = wallets.map((walletId) => executionName(organizationId, walletId));
    await Promise.all(wallets.map((walletId, index) => dynamo().send(new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.execution(names[index]!, 'walletProvisioning'), entity: executionEntity, name: names[index], workflow: 'walletProvisioning',
        input: { organizationId, walletId, activationWaitSeconds: 0 }, status: 'RUNNING', ownerId: 'gone', ownerHost: 'some-other-host', ownerPid: 1,
        leaseExpiresAt: Date.now() - 1_000, drives: 1, startedAt: now, updatedAt: now, gsi2pk: runningExecutionsKey, gsi2sk: `${now}#${names[index]}`,
      },
    }))));
    // Reads of these records in flight at one moment, at most.
    let reading = 0;
    let mostAtOnce = 0;
    const ours = new Set(names.map((name) => keys.execution(name, 'walletProvisioning').pk));
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const key = (args.input as { Key?: { pk?: string }; UpdateExpression?: string }).Key;
        if (!key?.pk || !ours.has(key.pk) || 'UpdateExpression' in (args.input as object)) return next(args);
        reading += 1;
        mostAtOnce = Math.max(mostAtOnce, reading);
        try {
          return await next(args);
        } finally {
          reading -= 1;
        }
      },
      { step: 'initialize', name: 'count-concurrent-execution-reads' },
    );
    try {
      const engine = runner();
      expect((await engine.resumeUnfinished()).sort()).toEqual([...names].sort());
      expect(mostAtOnce).toBeGreaterThan(1);
      for (const name of names) expect(await engine.waitFor(name)).toMatchObject({ status: 'SUCCEEDED', drives: 2 });
    } finally {
      dynamo().middlewareStack.remove('count-concurrent-execution-reads');
    }
  });

  it('sweeps for abandoned executions on its own when told to', async () => {
    waitCap(undefined);
    const crashed = runner();
    const organizationId = 'org_wf6';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);
    await crashed.start('walletProvisioning', name, { organizationId, walletId, activationWaitSeconds: 3600 });
    await until(() => crashed.currentState(name) === 'WaitForActivation' || undefined, 'the Wait state');
    waitCap('0');

    // Already running before the other one dies, as a long-lived `npm start` would be.
    const survivor = runner({ resumeIntervalMs: 50 });
    await crashed.stop();
    expect(await survivor.waitFor(name)).toMatchObject({ status: 'SUCCEEDED', drives: 2 });
    expect(await activatedEventsFor(walletId)).toHaveLength(1);
  });

  it('answers a repeated StartExecution as Step Functions: the running execution for the same input, ExecutionAlreadyExists for other input or once finished', async () => {
    waitCap(undefined);
    const engine = runner();
    const organizationId = 'org_wf7';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);
    const input = { organizationId, walletId, activationWaitSeconds: 3 };
    try {
      const first = await engine.startExecution('walletProvisioning', name, input);
      expect(first.executionArn).toBe(`arn:aws:states:local:000000000000:execution:walletProvisioning:${name}`);
      await until(() => engine.currentState(name) === 'WaitForActivation' || undefined, 'the Wait state');

      // Running, same input: a success naming the same execution and its original startDate, from this runner's memory and from another's read of the record.
      expect(await engine.startExecution('walletProvisioning', name, { ...input })).toEqual(first);
      expect(await runner().startExecution('walletProvisioning', name, { ...input })).toEqual(first);
      expect(await engine.start('walletProvisioning', name, input)).toEqual({ executionName: name, started: false });
      // Running, other input: ExecutionAlreadyExists.
      await expect(engine.startExecution('walletProvisioning', name, { organizationId, walletId })).rejects.toBeInstanceOf(ExecutionAlreadyExists);
      await expect(runner().startExecution('walletProvisioning', name, { ...input, activationWaitSeconds: 4 })).rejects.toBeInstanceOf(ExecutionAlreadyExists);

      // Finished: ExecutionAlreadyExists whatever the input, from memory and from the record.
      expect(await engine.waitFor(name)).toMatchObject({ status: 'SUCCEEDED', drives: 1 });
      await engine.idle();
      await expect(engine.startExecution('walletProvisioning', name, input)).rejects.toBeInstanceOf(ExecutionAlreadyExists);
      await expect(runner().startExecution('walletProvisioning', name, input)).rejects.toBeInstanceOf(ExecutionAlreadyExists);
      expect(await activatedEventsFor(walletId)).toHaveLength(1);
    } finally {
      waitCap('0');
    }
    // Names are per state machine, as in Step Functions: the payment workflow may use the same one.
    await engine.startExecution('payment', name, { organizationId, transactionId: 'tx_absent' });
    expect(await engine.waitFor(name, 10_000, 'payment')).toMatchObject({ status: 'FAILED' });
    expect((await getExecution(name, 'walletProvisioning'))?.status).toBe('SUCCEEDED');
  });

  it('answers a repeated start of an execution another runner re-drives as the running execution it is', async () => {
    waitCap(undefined);
    const crashed = runner();
    const organizationId = 'org_wf14';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);
    const input = { organizationId, walletId, activationWaitSeconds: 3600 };
    const first = await crashed.startExecution('walletProvisioning', name, input);
    await until(() => crashed.currentState(name) === 'WaitForActivation' || undefined, 'the Wait state');
    await crashed.stop();
    // Its runner gone, it is still RUNNING (until a runner re-drives it): a repeat is a success, as for any running execution.
    try {
      expect(await runner().startExecution('walletProvisioning', name, input)).toEqual(first);
      await runner().resumeUnfinished();
      await until(async () => ((await getExecution(name, 'walletProvisioning'))?.drives === 2 ? true : undefined), 'the re-drive');
      expect(await runner().startExecution('walletProvisioning', name, input)).toEqual(first);
      await expect(runner().startExecution('walletProvisioning', name, { organizationId, walletId })).rejects.toBeInstanceOf(ExecutionAlreadyExists);
    } finally {
      waitCap('0');
    }
  });

  it('evaluates a Wait state\'s path: a negative wait a task answers fails the execution, as in AWS', async () => {
    const engine = runner();
    const organizationId = 'org_wf8';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);
    await engine.start('walletProvisioning', name, { organizationId, walletId, activationWaitSeconds: -5 });
    const outcome = await engine.waitFor(name);
    expect(outcome).toMatchObject({ status: 'FAILED' });
    expect(outcome.history).toEqual(['CreateWallet', 'WaitForActivation']);
    expect((await getWallet(organizationId, walletId))?.status).toBe('provisioning');
  });

  it('records the execution\'s history in Step Functions\' event shape', async () => {
    const engine = runner();
    const organizationId = 'org_wf9';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);
    await engine.start('walletProvisioning', name, { organizationId, walletId, activationWaitSeconds: 0 });
    await engine.waitFor(name);
    const events = (await engine.history('walletProvisioning', name))!;
    expect(events.map((event) => event.type)).toEqual([
      'ExecutionStarted',
      'TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSucceeded', 'TaskStateExited',
      'WaitStateEntered', 'WaitStateExited',
      'TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSucceeded', 'TaskStateExited',
      'ExecutionSucceeded',
    ]);
    expect(events.map((event) => event.id)).toEqual(events.map((_, index) => index + 1));
    expect(events[1]).toMatchObject({ stateEnteredEventDetails: { name: 'CreateWallet' } });
    expect(await engine.history('walletProvisioning', 'no-such-execution')).toBeUndefined();
  });

  it('fails through Catch with the task error name when the wallet does not exist', async () => {
    const engine = runner();
    const name = executionName('org_wf5', 'wal_missing');
    await engine.start('walletProvisioning', name, { organizationId: 'org_wf5', walletId: 'wal_missing', activationWaitSeconds: 0 });
    const outcome = await engine.waitFor(name);

    expect(outcome.status).toBe('FAILED');
    expect(outcome.history).toEqual(['CreateWallet', 'ProvisioningFailed']);
    expect(outcome.error).toBe('WalletNotFound');
    expect(JSON.parse(outcome.cause ?? '{}')).toMatchObject({ errorType: 'WalletNotFound' });
  });

  it('answers waitFor for an execution it recorded without reading the record, the same as the record reads', async () => {
    const engine = runner();
    const organizationId = 'org_wf11';
    const walletId = await provisioningWallet(organizationId);
    const succeeded = executionName(organizationId, walletId);
    const failed = executionName('org_wf11', 'wal_missing');
    await engine.start('walletProvisioning', succeeded, { organizationId, walletId, activationWaitSeconds: 0 });
    await engine.start('walletProvisioning', failed, { organizationId: 'org_wf11', walletId: 'wal_missing', activationWaitSeconds: 0 });
    await engine.idle();

    for (const name of [succeeded, failed]) {
      const before = dynamoCallCount();
      const remembered = await engine.waitFor(name);
      expect(dynamoCallCount() - before).toBe(0);
      // Another runner knows nothing of it: it reads the record.
      const read = await runner().waitFor(name);
      expect(remembered).toEqual(read);
      expect(await engine.waitFor(name, 1_000, 'walletProvisioning')).toEqual(read);
    }
    expect((await engine.waitFor(succeeded)).status).toBe('SUCCEEDED');
    expect((await engine.waitFor(failed)).error).toBe('WalletNotFound');
  });

  it('answers a repeated start of a name it created, or is creating, without writing to the table', async () => {
    const engine = runner();
    const organizationId = 'org_wf10';
    const walletId = await provisioningWallet(organizationId);
    const name = executionName(organizationId, walletId);
    const input = { organizationId, walletId, activationWaitSeconds: 0 };
    const writes = countExecutionWrites(name);
    try {
      // Two at once (the batch's start and the outbox's safety net): one Put between them.
      const both = await Promise.all([engine.start('walletProvisioning', name, input), engine.start('walletProvisioning', name, input)]);
      expect(both.map((start) => start.started).sort()).toEqual([false, true]);
      expect(writes.puts).toBe(1);
      await engine.waitFor(name);
      expect(await engine.start('walletProvisioning', name, input)).toEqual({ executionName: name, started: false });
      expect(writes.puts).toBe(1);
      // Another runner (another process) does not know the name: the conditional Put refuses it.
      expect(await runner().start('walletProvisioning', name, input)).toEqual({ executionName: name, started: false });
      expect(writes.puts).toBe(2);
      expect((await getExecution(name))?.drives).toBe(1);
    } finally {
      writes.stop();
    }
  });

  it('records the history of an execution that sits at a Wait, and not at one passed straight through', async () => {
    waitCap(undefined);
    const engine = runner();
    const organizationId = 'org_wf11';
    const quickWallet = await provisioningWallet(organizationId);
    const quick = executionName(organizationId, quickWallet);
    const quickWrites = countExecutionWrites(quick);
    const walletId = await provisioningWallet(organizationId);
    const slow = executionName(organizationId, walletId);
    try {
      await engine.start('walletProvisioning', quick, { organizationId, walletId: quickWallet, activationWaitSeconds: 0 });
      await engine.waitFor(quick);
      // The start and the end: nothing at its Wait of 0 s.
      expect({ puts: quickWrites.puts, updates: quickWrites.updates }).toEqual({ puts: 1, updates: 1 });

      await engine.start('walletProvisioning', slow, { organizationId, walletId, activationWaitSeconds: 3600 });
      const recorded = await until(async () => {
        const types = (await getExecution(slow))?.events?.map((event) => event.type) ?? [];
        return types.includes('WaitStateEntered') ? types : undefined;
      }, 'the history up to the Wait, in the table');
      expect(recorded).toEqual(['ExecutionStarted', 'TaskStateEntered', 'TaskScheduled', 'TaskStarted', 'TaskSucceeded', 'TaskStateExited', 'WaitStateEntered']);
      expect(engine.currentState(slow)).toBe('WaitForActivation');
    } finally {
      quickWrites.stop();
      await engine.stop();
      waitCap('0');
    }
  });

  it('reads the history of a record written before it was kept as one JSON string', async () => {
    const name = 'org_wf13-legacy';
    const events = [{ id: 1, timestamp: '2026-11-01T00:00:00.000Z', type: 'ExecutionStarted', executionStartedEventDetails: {} }];
    await dynamo().send(new PutCommand({
      TableName: tableName(),
      Item: { ...keys.execution(name, 'walletProvisioning'), entity: executionEntity, name, workflow: 'walletProvisioning', input: {}, status: 'SUCCEEDED', events, startedAt: events[0]!.timestamp, updatedAt: events[0]!.timestamp },
    }));
    expect((await getExecution(name, 'walletProvisioning'))?.events).toEqual(events);
  });

  it('is reachable while started and not after stop', async () => {
    const engine = new LocalWorkflowRunner();
    expect(await engine.reachable()).toBe(true);
    await engine.stop();
    expect(await engine.reachable()).toBe(false);
    await expect(engine.start('walletProvisioning', 'x-y', {})).rejects.toThrow(/stopped/);
  });
});

describe('StepFunctionsEngine (no network: the SDK call is answered by a middleware)', () => {
  const prefix = 'arn:aws:states:eu-west-1:123456789012:stateMachine:payments-sandbox-';

  function clientAnswering(answer: (input: Record<string, unknown>) => unknown) {
    const sent: { command: string; input: Record<string, unknown> }[] = [];
    const client = new SFNClient({ region: 'eu-west-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    client.middlewareStack.add(
      (_next, context) => async (args) => {
        sent.push({ command: context.commandName as string, input: args.input as Record<string, unknown> });
        return { output: answer(args.input as Record<string, unknown>) as never, response: {} };
      },
      { step: 'initialize', name: 'answerWithoutNetwork' },
    );
    return { client, sent };
  }

  it('names the state machine from the prefix and the registry name', () => {
    expect(stateMachineArn(prefix, 'walletProvisioning')).toBe(`${prefix}walletProvisioning`);
    expect(() => new StepFunctionsEngine(undefined)).toThrow();
  });

  it('starts with the execution name and JSON input, and maps ExecutionAlreadyExists to started:false', async () => {
    let exists = false;
    const { client, sent } = clientAnswering(() => {
      if (exists) throw new ExecutionAlreadyExists({ message: 'exists', $metadata: {} });
      exists = true;
      return { executionArn: 'arn', startDate: new Date() };
    });
    const engine = new StepFunctionsEngine(prefix, client);

    expect(await engine.start('walletProvisioning', 'org_1-wal_1', { walletId: 'wal_1' })).toEqual({ executionName: 'org_1-wal_1', started: true });
    expect(await engine.start('walletProvisioning', 'org_1-wal_1', { walletId: 'wal_1' })).toEqual({ executionName: 'org_1-wal_1', started: false });
    expect(sent[0]).toEqual({
      command: 'StartExecutionCommand',
      input: { stateMachineArn: `${prefix}walletProvisioning`, name: 'org_1-wal_1', input: '{"walletId":"wal_1"}' },
    });
  });

  it('tells a new start from Step Functions\' success for a running execution\'s repeat by its startDate', async () => {
    const startedAt = new Date(Date.now() - 60_000);
    let created = false;
    const { client } = clientAnswering(() => {
      // Step Functions answers the repeat of a running execution's name and input with that execution's own startDate.
      const answer = { executionArn: 'arn', startDate: created ? startedAt : new Date() };
      created = true;
      return answer;
    });
    const engine = new StepFunctionsEngine(prefix, client);
    expect(await engine.start('batch', 'org_1-batch-b1', { batchId: 'b1' })).toEqual({ executionName: 'org_1-batch-b1', started: true });
    expect(await engine.start('batch', 'org_1-batch-b1', { batchId: 'b1' })).toEqual({ executionName: 'org_1-batch-b1', started: false });
    // Its clock may run behind ours by less than the allowance and a new execution is still new.
    const calledAt = new Date();
    expect(startedByThisCall(new Date(calledAt.getTime() - startClockSkewMs + 1), calledAt)).toBe(true);
    expect(startedByThisCall(new Date(calledAt.getTime() - startClockSkewMs - 1), calledAt)).toBe(false);
  });

  it('answers reachable without calling Step Functions: GET /health costs no AWS call (decision 106)', async () => {
    const down = clientAnswering(() => {
      throw new Error('no route');
    });
    expect(await new StepFunctionsEngine(prefix, down.client).reachable()).toBe(true);
    expect(down.sent).toEqual([]);
  });
});
