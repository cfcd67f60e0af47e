import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { corridorCatalogue, sampleBeneficiary } from '#domain/corridors.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { creditDeposit, readBalance } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';

/**
 * A retry is compared on what it asks, not on how it is written (issue 10, item 5;
 * docs/decisions/071): on every money-moving POST with an idempotency key, the same request in
 * another spelling (an amount with or without decimals, keys in another order, other whitespace,
 * a default written out, ignored fields) answers what the first answered and moves money once;
 * a request that means something else is still 409.
 */
let service: LocalService;
let org: TestOrganization;
let seq = 0;
const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;
const mx = corridorCatalogue.find((corridor) => corridor.to === 'MXN')!;
const toAddress = '0x52908400098527886e0f7030069857d2e4169ee7';

/** The same JSON, keys reversed at every level and spread over lines: the spelling of a different client. */
function respelled(value: unknown): string {
  const reorder = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(reorder);
    if (node && typeof node === 'object') return Object.fromEntries(Object.entries(node).reverse().map(([name, inner]) => [name, reorder(inner)]));
    return node;
  };
  return `\n  ${JSON.stringify(reorder(value), null, '\t')}  \n`;
}

function post(path: string, body: unknown) {
  return typeof body === 'string'
    ? call(service, 'POST', path, { apiKey: org.apiKey, rawBody: body, headers: { 'content-type': 'application/json' } })
    : call(service, 'POST', path, { apiKey: org.apiKey, body });
}

async function available(): Promise<bigint> {
  return (await readBalance(org.organizationId)).available;
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
  await creditDeposit({ organizationId: org.organizationId, depositId: 'retry-spelling', amount: 10_000_000_000n, rail: 'wire', memo: 'test deposit' });
});

afterAll(async () => {
  try {
    await expectLedgerInvariant(org.organizationId);
  } finally {
    await service?.stop();
  }
});

describe('POST /transactions', () => {
  const payment = (idempotencyKey: string, amount: string) => ({
    idempotencyKey,
    corridor: { to: mx.to, destinationCountry: mx.destinationCountry },
    sendAmount: { amount, currency: 'USDC' },
    recipientReference: 'invoice 7',
    beneficiary: sampleBeneficiary(mx),
  });

  it('"100" then "100.00", keys reordered, spaced, payoutMode written out: the first answer, one hold', async () => {
    const idempotencyKey = key('pay');
    const before = await available();
    const first = await post('/transactions', payment(idempotencyKey, '100'));
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    for (const retry of [
      respelled(payment(idempotencyKey, '100.00')),
      { ...payment(idempotencyKey, '0100.000000'), payoutMode: 'regular', unknownField: 'ignored' },
      { ...payment(idempotencyKey, '100.0'), payoutMode: 'instant' },
    ]) {
      const again = await post('/transactions', retry);
      expect(again.status, JSON.stringify(again.body)).toBe(202);
      expect(again.body.transactionId).toBe(first.body.transactionId);
    }
    expect(before - (await available())).toBe(100_000_000n);
    await untilSettled(service, org.apiKey, `/transactions/${idempotencyKey}`);
    expect(before - (await available())).toBe(100_000_000n);
  });

  it('a compliance hold answers the same hold to another spelling, and 409 to another payment', async () => {
    const idempotencyKey = key('held');
    const held = (amount: string) => ({ ...payment(idempotencyKey, amount), beneficiary: { ...sampleBeneficiary(mx), name: 'Blocked Person' } });
    const before = await available();
    const first = await post('/transactions', held('25'));
    expect([first.status, first.body.error]).toEqual([403, 'compliance_hold']);
    const again = await post('/transactions', respelled(held('25.00')));
    expect(again.body).toEqual(first.body);
    const other = await post('/transactions', held('26'));
    expect([other.status, other.body.error]).toEqual([409, 'idempotency_key_reused']);
    expect(await available()).toBe(before);
  });

  it('another meaning under the same key is still 409 idempotency_key_reused, and moves nothing', async () => {
    const idempotencyKey = key('pay');
    expect((await post('/transactions', payment(idempotencyKey, '100'))).status).toBe(202);
    const before = await available();
    for (const changed of [
      payment(idempotencyKey, '100.01'),
      { ...payment(idempotencyKey, '100'), recipientReference: 'invoice 8' },
      { ...payment(idempotencyKey, '100'), beneficiary: { ...sampleBeneficiary(mx), name: 'Someone Else' } },
    ]) {
      const answer = await post('/transactions', changed);
      expect([answer.status, answer.body.error], JSON.stringify(changed)).toEqual([409, 'idempotency_key_reused']);
    }
    expect(await available()).toBe(before);
    await untilSettled(service, org.apiKey, `/transactions/${idempotencyKey}`);
  });
});

describe('POST /treasury/withdrawals', () => {
  const withdrawal = (idempotencyKey: string, amount: string, address = toAddress) => ({
    idempotencyKey, amount: { amount, currency: 'USDC' }, chain: 'base', toAddress: address,
  });

  it('"100" then "100.00", reordered, the address in upper case: the first answer, one withdrawal', async () => {
    const idempotencyKey = key('wd');
    const before = await available();
    const first = await post('/treasury/withdrawals', withdrawal(idempotencyKey, '100'));
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    for (const retry of [respelled(withdrawal(idempotencyKey, '100.00')), withdrawal(idempotencyKey, '100.000000', `0x${toAddress.slice(2).toUpperCase()}`)]) {
      const again = await post('/treasury/withdrawals', retry);
      expect(again.status, JSON.stringify(again.body)).toBe(202);
      expect(again.body).toEqual(first.body);
    }
    const done = await untilSettled(service, org.apiKey, `/treasury/withdrawals/${idempotencyKey}`);
    expect(done.state).toBe('SENT');
    expect(before - (await available())).toBe(100_000_000n);
    const reused = await post('/treasury/withdrawals', withdrawal(idempotencyKey, '100.01'));
    expect([reused.status, reused.body.error]).toEqual([409, 'idempotency_key_reused']);
  });
});

describe('POST /treasury/offramp', () => {
  let beneficiaryId: string;
  beforeAll(async () => {
    beneficiaryId = (await post('/treasury/beneficiaries', sampleOffRampBeneficiaries[0])).body.id;
  });
  const offRamp = (idempotencyKey: string, amount: string) => ({ idempotencyKey, amount: { amount, currency: 'USDC' }, beneficiaryId });

  it('"100" then "100.00", reordered and spaced: the first answer, one off-ramp; another amount is 409', async () => {
    const idempotencyKey = key('ofr');
    const before = await available();
    const first = await post('/treasury/offramp', offRamp(idempotencyKey, '100'));
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    for (const retry of [respelled(offRamp(idempotencyKey, '100.00')), { ...offRamp(idempotencyKey, '100.0'), unknownField: 'ignored' }]) {
      const again = await post('/treasury/offramp', retry);
      expect(again.status, JSON.stringify(again.body)).toBe(202);
      expect(again.body.offRampId).toBe(first.body.offRampId);
    }
    const done = await untilSettled(service, org.apiKey, `/treasury/offramp/${idempotencyKey}`, 20_000, (status) => Boolean(status.state));
    expect(done.state).toBe('PAID');
    expect(before - (await available())).toBe(100_000_000n);
    const changed = await post('/treasury/offramp', offRamp(idempotencyKey, '100.01'));
    expect([changed.status, changed.body.error]).toEqual([409, 'idempotency_key_conflict']);
  });
});

describe('POST /treasury/onramp', () => {
  it('"1000" then "1000.00", reordered, the default stablecoin written out: the same on-ramp and instructions', async () => {
    const idempotencyKey = key('onr');
    const first = await post('/treasury/onramp', { idempotencyKey, amount: { amount: '1000', currency: 'USD' } });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    for (const retry of [
      respelled({ idempotencyKey, amount: { amount: '1000.00', currency: 'USD' } }),
      { amount: { currency: 'USD', amount: '1000.0' }, targetStablecoin: 'USDC', idempotencyKey },
    ]) {
      const again = await post('/treasury/onramp', retry);
      expect(again.status, JSON.stringify(again.body)).toBe(202);
      expect([again.body.onRampId, again.body.instructions]).toEqual([first.body.onRampId, first.body.instructions]);
    }
    const listed = await call(service, 'GET', '/treasury/onramps?origin=api', { apiKey: org.apiKey });
    expect(listed.body.onramps.filter((row: { onRampId: string }) => row.onRampId === idempotencyKey)).toHaveLength(1);
    const changed = await post('/treasury/onramp', { idempotencyKey, amount: { amount: '1000.01', currency: 'USD' } });
    expect([changed.status, changed.body.error]).toEqual([409, 'idempotency_key_reused']);
  });
});

describe('POST /treasury/onramp/pix', () => {
  it('"500" then "500.00", reordered, the default currency written out: the same BR Code', async () => {
    const idempotencyKey = key('pix');
    const first = await post('/treasury/onramp/pix', { idempotencyKey, amount: { amount: '500' } });
    expect(first.status, JSON.stringify(first.body)).toBe(202);
    for (const retry of [respelled({ idempotencyKey, amount: { amount: '500.00' } }), { amount: { currency: 'BRL', amount: '500.0' }, idempotencyKey }]) {
      const again = await post('/treasury/onramp/pix', retry);
      expect(again.status, JSON.stringify(again.body)).toBe(202);
      expect([again.body.onRampId, again.body.instructions]).toEqual([first.body.onRampId, first.body.instructions]);
    }
    const changed = await post('/treasury/onramp/pix', { idempotencyKey, amount: { amount: '500.01' } });
    expect([changed.status, changed.body.error]).toEqual([409, 'idempotency_key_reused']);
  });
});
