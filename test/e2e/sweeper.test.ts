import { operationExecutionName, operationInput } from '#operations/kit/start.ts';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { crashableService } from '../support/crash.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { handler as sweep } from '../../functions/scheduled/startSweeper.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { reloadConfig } from '#platform/config.ts';
import { dynamo } from '#store/client.ts';
import { getExecution } from '#store/executions.ts';
import { keys, startingIndex } from '#store/keys.ts';
import { creditDeposit } from '#store/ledger.ts';
import { useFxProvider } from '#providers/fx.ts';
import { SimulatedFx } from '#simulators/fx.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { eventually } from '../support/eventually.ts';

/**
 * Nothing stuck silently: an operation committed whose workflow never started (its start and its
 * safety-net event both failed, or the process died between the commit and the start) is started
 * by the sweeper, once.
 */
const toAddress = '0x52908400098527886e0f7030069857d2e4169ee7';

async function startingItems(): Promise<string[]> {
  const { Items } = await dynamo().send(new QueryCommand({
    TableName: process.env.TABLE_NAME, IndexName: 'gsi2v2', KeyConditionExpression: 'gsi2pk = :pk', ExpressionAttributeValues: { ':pk': startingIndex.pk },
  }));
  return (Items ?? []).map((item) => String(item.gsi2sk));
}

describe('the sweeper, in process', () => {
  let service: LocalService;
  let org: TestOrganization;

  beforeAll(async () => {
    service = await startTestService();
    org = await createTestOrganization(service);
    await creditDeposit({ organizationId: org.organizationId, depositId: 'sweeper-funding', amount: 1_000_000_000n, rail: 'wire', memo: 'test deposit' });
  });
  afterAll(async () => {
    delete process.env.LOCAL_FAULT_BEFORE_START;
    await service?.stop();
  });

  it('starts a payment and a withdrawal whose start and starter event both failed, once; an operation already running is left alone', async () => {
    process.env.LOCAL_FAULT_BEFORE_START = 'throw:payment';
    const transactionId = `sweep-pay-${randomBytes(4).toString('hex')}`;
    const paid = await call(service, 'POST', '/transactions', {
      apiKey: org.apiKey,
      body: {
        idempotencyKey: transactionId, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.00', currency: 'USDC' },
        recipientReference: 'sweeper', beneficiary: sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!),
      },
    });
    expect(paid.status).toBe(202);
    // The safety-net starter fails on every delivery, as a Lambda would, until its queue dead-letters it.
    await eventually(async () => service.bus.deadLetters.find((letter) => letter.rule === 'operationStarter') ?? undefined, { what: 'the dead-lettered starter' });
    process.env.LOCAL_FAULT_BEFORE_START = 'throw:withdrawal';
    const withdrawalId = `sweep-wd-${randomBytes(4).toString('hex')}`;
    const withdrawn = await call(service, 'POST', '/treasury/withdrawals', {
      apiKey: org.apiKey,
      body: { idempotencyKey: withdrawalId, amount: { amount: '5.00', currency: 'USDC' }, chain: 'base', toAddress },
    });
    expect(withdrawn.status).toBe(202);
    await eventually(async () => (service.bus.deadLetters.filter((letter) => letter.rule === 'operationStarter').length >= 2 ? true : undefined), { what: 'the withdrawal\'s dead-lettered start too' });
    delete process.env.LOCAL_FAULT_BEFORE_START;

    expect((await call(service, 'GET', `/transactions/${transactionId}`, { apiKey: org.apiKey })).body.state).toBe('FUNDED');
    expect((await call(service, 'GET', `/treasury/withdrawals/${withdrawalId}`, { apiKey: org.apiKey })).body.state).toBe('INITIATED');
    expect(await startingItems()).toHaveLength(2);

    process.env.SWEEPER_GRACE_SECONDS = '0';
    reloadConfig();
    try {
      const first = await sweep();
      expect(first.restarted.sort()).toEqual([operationExecutionName('payment', org.organizationId, transactionId), operationExecutionName('withdrawal', org.organizationId, withdrawalId)].sort());
      // Swept again while they run: the engine refuses the names, nothing is started twice.
      const second = await sweep();
      expect(second.restarted).toEqual([]);
    } finally {
      delete process.env.SWEEPER_GRACE_SECONDS;
      reloadConfig();
    }
    expect((await untilSettled(service, org.apiKey, `/transactions/${transactionId}`)).state).toBe('RECONCILED');
    expect((await untilSettled(service, org.apiKey, `/treasury/withdrawals/${withdrawalId}`)).state).toBe('SENT');
    expect(await startingItems()).toEqual([]);
    expect((await getExecution(operationExecutionName('payment', org.organizationId, transactionId), 'payment'))?.drives).toBe(1);
    await expectLedgerInvariant(org.organizationId);
  });

  it('never counts a batch kept ACCEPTED while StartItems waits for its FX source as a restart: the engine answers its running execution, sweep after sweep', async () => {
    // The FX source prices the batch's intake, then is down: StartItems waits and tries again, the batch stays ACCEPTED.
    const fx = new SimulatedFx();
    let quotes = 0;
    useFxProvider({
      name: fx.name,
      quote: async (from, to, now) => {
        quotes += 1;
        if (quotes > 1) throw new ProviderUnavailable('FX source down');
        return fx.quote(from, to, now);
      },
    });
    const batchId = `sweep-batch-${randomBytes(4).toString('hex')}`;
    const name = operationExecutionName('batch', org.organizationId, batchId);
    process.env.SWEEPER_GRACE_SECONDS = '0';
    reloadConfig();
    try {
      const mx = findCorridor('USDC', 'MXN', 'MX')!;
      const accepted = await call(service, 'POST', '/batches', {
        apiKey: org.apiKey,
        body: {
          batchId, corridor: { to: 'MXN', destinationCountry: 'MX' }, provider: mx.routes[0]!.provider,
          items: [{ itemRef: 'only', sendAmount: { amount: '10.00', currency: 'USDC' }, recipientReference: 'sweeper batch', beneficiary: sampleBeneficiary(mx) }],
        },
      });
      expect(accepted.status).toBe(202);
      await eventually(async () => (quotes >= 3 ? true : undefined), { what: 'StartItems to try the FX source twice' });
      expect((await call(service, 'GET', `/batches/${batchId}`, { apiKey: org.apiKey })).body.state).toBe('ACCEPTED');
      expect((await startingItems()).some((sk) => sk.includes(batchId))).toBe(true);

      // What Step Functions answers the sweeper's start: success, naming the running execution and its own start.
      const execution = (await getExecution(name, 'batch'))!;
      const repeat = await service.runner.startExecution('batch', name, operationInput('batch', org.organizationId, batchId));
      expect(repeat.startDate).toEqual(new Date(execution.startedAt));
      // The port says it is no start: not counted, however many sweeps find the batch.
      for (let sweepNo = 0; sweepNo < 3; sweepNo += 1) {
        const swept = await sweep();
        expect(swept.checked).toBeGreaterThanOrEqual(1);
        expect(swept.restarted).toEqual([]);
      }
    } finally {
      useFxProvider(undefined);
      delete process.env.SWEEPER_GRACE_SECONDS;
      reloadConfig();
    }
    // The source back, the same execution starts the item and completes the batch.
    const done = await eventually(async () => {
      const { body } = await call(service, 'GET', `/batches/${batchId}`, { apiKey: org.apiKey });
      return body.state === 'COMPLETED' ? body : undefined;
    }, { what: 'the batch to complete', timeoutMs: 60_000 });
    expect(done.state).toBe('COMPLETED');
    expect(await service.runner.waitFor(name, 30_000, 'batch')).toMatchObject({ status: 'SUCCEEDED', drives: 1 });
    await expectLedgerInvariant(org.organizationId);
  }, 120_000);
});

describe('the sweeper after a SIGKILL between commit and start', () => {
  const service = crashableService('sweepcrash', { SWEEPER_GRACE_SECONDS: '0', SWEEPER_INTERVAL_SECONDS: '1' });
  afterAll(async () => {
    await service.killAll();
  });

  it('completes the withdrawal exactly once after the restart', async () => {
    const port = await freePort();
    // The process dies just before it would record the withdrawal's execution: committed, never started.
    const first = await service.launch(port, { LOCAL_FAULT_BEFORE_START: 'kill:withdrawal' });
    const auth = { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json' };
    const me = (await (await fetch(`${first.url}/me`, { headers: auth })).json()) as { id: string };
    const withdrawalId = `sweepcrash-${randomBytes(4).toString('hex')}`;
    const answer = await fetch(`${first.url}/treasury/withdrawals`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ idempotencyKey: withdrawalId, amount: { amount: '7.00', currency: 'USDC' }, chain: 'base', toAddress }),
    }).catch((error: Error) => error);
    // The request's process died under it: no answer.
    expect(answer).toBeInstanceOf(Error);
    await service.killHard(first.child);

    service.readItsTable();
    const record = async () =>
      (await dynamo().send(new GetCommand({ TableName: service.tableName, Key: keys.operation(me.id, 'withdrawal', withdrawalId), ConsistentRead: true }))).Item;
    expect((await record())?.status).toBe('INITIATED');
    const name = operationExecutionName('withdrawal', me.id, withdrawalId);
    expect(await getExecution(name, 'withdrawal')).toBeUndefined();

    await service.launch(port);
    const sent = await eventually(async () => ((await record())?.status === 'SENT' ? true : undefined), { what: 'the withdrawal SENT', timeoutMs: 60_000 });
    expect(sent).toBe(true);
    const execution = await eventually(async () => {
      const found = await getExecution(name, 'withdrawal');
      return found?.status === 'SUCCEEDED' ? found : undefined;
    }, { what: 'the execution to end' });
    expect(execution.drives).toBe(1);
    const sends = await dynamo().send(new GetCommand({ TableName: service.tableName, Key: keys.journalEntry(me.id, `withdrawal:${withdrawalId}:send`), ConsistentRead: true }));
    expect(sends.Item).toBeDefined();
    expect(await startingItems()).toEqual([]);
    await expectLedgerInvariant(me.id);
  });
});
