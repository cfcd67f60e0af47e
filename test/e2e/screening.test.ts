import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { expectLedgerInvariantForAll } from '../support/ledgerInvariant.ts';
import { until } from '../support/eventually.ts';
import { strictly } from '../support/strictSchema.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { blockedAddresses } from '#domain/screening.ts';
import { ComplianceHoldBody } from '#schemas/errors.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { creditDeposit, listJournalEntries, readBalance } from '#store/ledger.ts';
import { putOffRampBeneficiary } from '#store/offRampBeneficiaries.ts';
import { setRateLimits } from '#store/organizations.ts';

/**
 * Screening over HTTP at every point money can reach a party (decision 078): a payment, an
 * off-ramp beneficiary at registration and again at the off-ramp, a withdrawal address (079).
 * A hit is the contract's 403 compliance_hold, nothing moves, and the compliance record keeps the
 * account masked.
 */

let service: LocalService;
let org: TestOrganization;
let seq = 0;

const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;
/** "Ivan Dragomir Petrov" with a Cyrillic а: looks like the listed name, is not its letters. */
const lookAlikeName = 'Iv\u0430n Dragomir Petrov';
const [eurBody] = sampleOffRampBeneficiaries as unknown as [Record<string, string>];

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
  await creditDeposit({ organizationId: org.organizationId, depositId: key('dep'), amount: 100_000_000_000n, rail: 'wire', memo: 'test deposit' });
});

afterAll(async () => {
  try {
    await expectLedgerInvariantForAll();
  } finally {
    await service?.stop();
  }
});

/** The balance and the journal as they stand: a held request must leave both exactly so. */
async function money() {
  return { balance: await readBalance(org.organizationId), entries: (await listJournalEntries(org.organizationId)).length };
}

async function complianceRecord(id: string, operation?: 'beneficiary' | 'offramp' | 'withdrawal') {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.complianceRecord(org.organizationId, id, operation), ConsistentRead: true }),
  );
  return Item;
}

/** The contract's hold: exactly error, message and the id; nothing says which list or name matched. */
function expectHold(answer: { status: number; body: Record<string, unknown> }, id?: string) {
  expect(answer.status).toBe(403);
  strictly(ComplianceHoldBody, answer.body);
  expect(answer.body).toEqual({ error: 'compliance_hold', message: expect.any(String), transactionId: id ?? expect.any(String) });
  const text = JSON.stringify(answer.body).toLowerCase();
  for (const word of ['dragomir', 'petrov', 'list', 'sanction', 'matched']) expect(text).not.toContain(word);
}

describe('payments', () => {
  it('a listed name in look-alike letters is held: 403, no payment, nothing moved, the record masked', async () => {
    const mx = findCorridor('USDC', 'MXN', 'MX')!;
    const beneficiary = { ...sampleBeneficiary(mx), name: lookAlikeName };
    const body = {
      idempotencyKey: key('pay'), corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '100.00', currency: 'USDC' },
      recipientReference: 'invoice 42', beneficiary,
    };
    const before = await money();
    const held = await call(service, 'POST', '/transactions', { apiKey: org.apiKey, body });
    expectHold(held, body.idempotencyKey);
    expect((await call(service, 'POST', '/transactions', { apiKey: org.apiKey, body })).body).toEqual(held.body);
    expect((await call(service, 'GET', `/transactions/${body.idempotencyKey}`, { apiKey: org.apiKey })).status).toBe(404);
    expect(await money()).toEqual(before);
    const record = await complianceRecord(body.idempotencyKey);
    expect(record).toMatchObject({ decision: 'held', screenedParty: 'beneficiary', beneficiaryAccount: expect.stringMatching(/^\*+\d{4}$/) });
    expect(JSON.stringify(record)).not.toContain(beneficiary.account);
  });
});

describe('a batch item whose id names a payment held by screening (issue 25, item 6)', () => {
  it.each([
    ['screening holds the item too', lookAlikeName],
    ['the item itself is clean', 'Ana Ruiz'],
  ])('%s: the item fails without touching the hold, and the held payment still answers its 403', async (_case, itemName) => {
    const mx = findCorridor('USDC', 'MXN', 'MX')!;
    const batchId = key('batch');
    const payment = {
      idempotencyKey: `${batchId}:i1`, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '100.00', currency: 'USDC' },
      recipientReference: 'invoice 7', beneficiary: { ...sampleBeneficiary(mx), name: lookAlikeName },
    };
    const held = await call(service, 'POST', '/transactions', { apiKey: org.apiKey, body: payment });
    expectHold(held, payment.idempotencyKey);
    const record = await complianceRecord(payment.idempotencyKey);
    expect(record).toBeDefined();
    const before = await money();

    const accepted = await call(service, 'POST', '/batches', {
      apiKey: org.apiKey,
      body: {
        batchId, corridor: { to: 'MXN', destinationCountry: 'MX' }, provider: mx.routes[0]!.provider,
        items: [
          { itemRef: 'i1', sendAmount: { amount: '30.00', currency: 'USDC' }, recipientReference: 'payroll', beneficiary: { ...sampleBeneficiary(mx), name: itemName } },
          { itemRef: 'i2', sendAmount: { amount: '20.00', currency: 'USDC' }, recipientReference: 'payroll', beneficiary: sampleBeneficiary(mx) },
        ],
      },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const done = await until(
      async () => (await call(service, 'GET', `/batches/${encodeURIComponent(batchId)}`, { apiKey: org.apiKey })).body,
      (body) => body.state === 'COMPLETED',
      { what: `batch ${batchId} to complete`, timeoutMs: 30_000 },
    );
    expect(done.page.items[0]).toMatchObject({ itemRef: 'i1', state: 'FAILED', failureReason: 'transaction_id_in_use' });
    expect(done.page.items[1]).toMatchObject({ itemRef: 'i2', state: 'RECONCILED' });

    // The hold is as screening wrote it, no payment took its id, and the repeated payment is still held.
    expect(await complianceRecord(payment.idempotencyKey)).toEqual(record);
    expect((await call(service, 'GET', `/transactions/${encodeURIComponent(payment.idempotencyKey)}`, { apiKey: org.apiKey })).status).toBe(404);
    expectHold(await call(service, 'POST', '/transactions', { apiKey: org.apiKey, body: payment }), payment.idempotencyKey);
    // Only the clean item's 20 USDC left the balance: the failed item's 30 came back.
    expect(before.balance.available - (await money()).balance.available).toBe(20_000_000n);
  });
});

describe('off-ramp beneficiaries', () => {
  it('registration of a listed name in look-alike letters is held: 403, nothing registered, the record masked', async () => {
    const body = { ...eurBody, name: lookAlikeName };
    const before = (await call(service, 'GET', '/treasury/beneficiaries', { apiKey: org.apiKey })).body;
    const held = await call(service, 'POST', '/treasury/beneficiaries', { apiKey: org.apiKey, body });
    expectHold(held);
    const id = held.body.transactionId as string;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);

    const after = (await call(service, 'GET', '/treasury/beneficiaries', { apiKey: org.apiKey })).body;
    expect(after.count).toBe(before.count);
    expect(JSON.stringify(after)).not.toContain('Dragomir');
    // The id it would have had names nothing that can be quoted or paid.
    const quote = await call(service, 'GET', `/treasury/offramp/quote?amount=100.00&beneficiaryId=${id}`, { apiKey: org.apiKey });
    expect(quote.status).toBe(400);

    const record = await complianceRecord(id, 'beneficiary');
    expect(record).toMatchObject({ decision: 'held', operation: 'beneficiary', screenedParty: 'beneficiary', beneficiaryName: lookAlikeName, currency: 'EUR' });
    expect(record!.beneficiaryAccount).toBe(`${'*'.repeat(eurBody.accountId!.length - 4)}${eurBody.accountId!.slice(-4)}`);
    expect(JSON.stringify(record)).not.toContain(eurBody.accountId);

    // A clean payee still registers.
    expect((await call(service, 'POST', '/treasury/beneficiaries', { apiKey: org.apiKey, body: eurBody })).status).toBe(201);
  });

  it('an off-ramp to a payee listed after it was registered is held: 403, no off-ramp, nothing moved, the record masked', async () => {
    // Registered before the list named it: written as registration wrote it then, since registration now refuses it.
    const payee = { ...eurBody, organizationId: org.organizationId, id: randomUUID(), name: 'Mara Volk\u03bfva', createdAt: new Date().toISOString() };
    await putOffRampBeneficiary(payee as never);
    const body = { idempotencyKey: key('ofr'), amount: { amount: '100.00', currency: 'USDC' }, beneficiaryId: payee.id };
    const before = await money();
    const held = await call(service, 'POST', '/treasury/offramp', { apiKey: org.apiKey, body });
    expectHold(held, body.idempotencyKey);
    expect((await call(service, 'POST', '/treasury/offramp', { apiKey: org.apiKey, body })).body).toEqual(held.body);
    const other = await call(service, 'POST', '/treasury/offramp', { apiKey: org.apiKey, body: { ...body, amount: { amount: '101.00', currency: 'USDC' } } });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_conflict');

    expect((await call(service, 'GET', `/treasury/offramp/${body.idempotencyKey}`, { apiKey: org.apiKey })).status).toBe(404);
    expect(await money()).toEqual(before);
    const deposit = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.simulatedOffRamp(`${org.organizationId}:${body.idempotencyKey}`), ConsistentRead: true }));
    expect(deposit.Item).toBeUndefined();
    const record = await complianceRecord(body.idempotencyKey, 'offramp');
    expect(record).toMatchObject({ decision: 'held', operation: 'offramp', beneficiaryId: payee.id, beneficiaryAccount: expect.stringMatching(/^\*+3000$/) });
    expect(JSON.stringify(record)).not.toContain(eurBody.accountId);
  });
});

describe('withdrawals', () => {
  it('a blocked address, in any case, is held: 403, no withdrawal, nothing sent, the record masked', async () => {
    const address = blockedAddresses[1]!;
    const body = { idempotencyKey: key('wd'), amount: { amount: '100.00', currency: 'USDC' }, chain: 'base', toAddress: `0x${address.slice(2).toUpperCase()}` };
    const before = await money();
    const held = await call(service, 'POST', '/treasury/withdrawals', { apiKey: org.apiKey, body });
    expectHold(held, body.idempotencyKey);
    expect(JSON.stringify(held.body).toLowerCase()).not.toContain(address.slice(2));
    expect((await call(service, 'POST', '/treasury/withdrawals', { apiKey: org.apiKey, body: { ...body, toAddress: address } })).body).toEqual(held.body);
    const other = await call(service, 'POST', '/treasury/withdrawals', { apiKey: org.apiKey, body: { ...body, amount: { amount: '99.00', currency: 'USDC' } } });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_reused');

    expect((await call(service, 'GET', `/treasury/withdrawals/${body.idempotencyKey}`, { apiKey: org.apiKey })).status).toBe(404);
    expect(await money()).toEqual(before);
    const transfer = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.simulatedChainTransfer(`${org.organizationId}:${body.idempotencyKey}`), ConsistentRead: true }),
    );
    expect(transfer.Item).toBeUndefined();
    const record = await complianceRecord(body.idempotencyKey, 'withdrawal');
    expect(record).toMatchObject({ decision: 'held', operation: 'withdrawal', screenedParty: 'destinationAddress', network: 'base' });
    expect(record!.destinationAddress).toBe(`${'*'.repeat(38)}${body.toAddress.slice(-4)}`);
    expect(JSON.stringify(record).toLowerCase()).not.toContain(address.slice(2, 38));

    // Another address goes out as before.
    const clean = await call(service, 'POST', '/treasury/withdrawals', {
      apiKey: org.apiKey, body: { ...body, idempotencyKey: key('wd'), toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' },
    });
    expect(clean.status).toBe(202);
  });
});
