import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { runAdmin } from '../support/admin.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { creditDeposit } from '#store/ledger.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';

/**
 * `admin ops history` on npm start's stack: the path of a paid payment, of one the provider made
 * wait twice (PENDING_RETRY), of one parked IN_DOUBT, and of one an operator then resolved.
 */
let service: LocalService;
let org: TestOrganization;
let seq = 0;
const beneficiary = sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!);
// The account number the payment carries: it must never appear in the history.
const accountNumber = String((beneficiary as { account?: string; clabe?: string }).account ?? (beneficiary as { clabe?: string }).clabe ?? '');

function run(...args: string[]) {
  return runAdmin(args, { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });
}

async function admin(...args: string[]): Promise<string> {
  const result = await run(...args);
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.trimEnd();
}

async function payAndSettle(amount: string): Promise<string> {
  const transactionId = `hist.pay:${Date.now().toString(36)}-${(seq += 1)}`;
  const accepted = await call(service, 'POST', '/transactions', {
    apiKey: org.apiKey,
    body: {
      idempotencyKey: transactionId, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount, currency: 'USDC' },
      recipientReference: 'history test', beneficiary,
    },
  });
  expect(accepted.status).toBe(202);
  await untilSettled(service, org.apiKey, `/transactions/${encodeURIComponent(transactionId)}`);
  // The workflow's end is recorded just after the last state change GET shows.
  await service.runner.idle();
  return transactionId;
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  await creditDeposit({ organizationId: org.organizationId, depositId: 'hist-funding', amount: 10_000_000_000n, rail: 'wire', memo: 'test deposit' });
});

afterAll(async () => {
  await service?.stop();
});

describe('admin ops history', () => {
  it('shows a retried payment: each state with its time, the retries, the waits, the outcomes, its end', async () => {
    const id = await payAndSettle('100.93');
    const text = await admin('ops', 'history', org.organizationId, id);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe(`payment ${id} of ${org.organizationId}: RECONCILED`);
    // The id has `.` and `:`, which a name cannot hold: the name still shows it.
    expect(lines[1]).toMatch(/^workflow payment, execution payment-hist_pay_[0-9a-z]+-\d+-[0-9a-f]{16}$/);
    const body = lines.slice(3);
    expect(body.every((line) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}(workflow|operation|operator) +\S/.test(line))).toBe(true);
    const workflow = body.filter((line) => / workflow /.test(line)).map((line) => line.replace(/^\S+\s+workflow\s+/, ''));
    expect(workflow[0]).toBe('execution started');
    expect(workflow).toContain('entered SubmitPayout (task)');
    expect(workflow.filter((line) => /^left SubmitPayout after .*: outcome retry, next wait 0 s$/.test(line))).toHaveLength(2);
    expect(workflow.filter((line) => /^waited in WaitBeforeRetry \d/.test(line))).toHaveLength(2);
    // Paid at once by the simulated rail: the submit step settles it to RECONCILED itself.
    expect(workflow).toEqual(expect.arrayContaining([expect.stringMatching(/^left SubmitPayout after .*: outcome done/)]));
    expect(workflow.at(-1)).toBe('execution succeeded');
    const operation = body.filter((line) => / operation /.test(line)).map((line) => line.replace(/^\S+\s+operation\s+/, ''));
    expect(operation.filter((line) => line.startsWith('PENDING_RETRY: payout provider unavailable'))).toHaveLength(2);
    expect(operation.at(-1)).toMatch(/^RECONCILED: fee of/);
    expect(text).not.toContain(accountNumber);
    expect(text).not.toContain(beneficiary.name as string);

    const json = JSON.parse(await admin('ops', 'history', org.organizationId, id, '--json'));
    expect(json.operation).toMatchObject({ kind: 'payment', id, status: 'RECONCILED', workflow: 'payment' });
    expect(json.executionFound).toBe(true);
    expect(json.lines.length).toBe(body.length);
  });

  it('shows where a payment parked and why, then the operator\'s resolution', async () => {
    const id = await payAndSettle('100.94');
    const parked = await admin('ops', 'history', org.organizationId, id);
    expect(parked.split('\n')[0]).toBe(`payment ${id} of ${org.organizationId}: IN_DOUBT (parked for a person)`);
    expect(parked).toMatch(/ operation +parked IN_DOUBT: the payout provider did not answer/);
    expect(parked).toMatch(/ workflow +left SubmitPayout after .*: outcome done\n/);

    const resolved = JSON.parse(await admin('resolve', 'payment', org.organizationId, id, '--as', 'not-paid', '--note', 'provider confirmed nothing was paid, ticket 881'));
    expect(resolved).toMatchObject({ resolved: true, status: 'REFUNDED' });
    const after = await admin('ops', 'history', org.organizationId, id);
    expect(after.split('\n')[0]).toBe(`payment ${id} of ${org.organizationId}: REFUNDED`);
    expect(after).toMatch(/ operator +REFUNDED: resolved by operations: provider confirmed nothing was paid, ticket 881/);
  });

  it('refuses an unknown operation', async () => {
    const result = await run('ops', 'history', org.organizationId, 'no-such-operation');
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('no operation no-such-operation');
  });
});
