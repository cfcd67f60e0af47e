import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { deepStrict, strictly } from '../support/strictSchema.ts';
import { brCodeFields, brCodeValid } from '#domain/brCode.ts';
import { pixFeeBps } from '#operations/onRamp/pricing.ts';
import { readBalance } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { OnRampStatus, PixOnRampAccepted, PixOnRampQuote } from '#schemas/deposits.ts';
import { SimulatedOnRampPayment } from '#schemas/sandbox.ts';

/**
 * PIX on-ramps end to end through HTTP with the real workflow runner: quote, open a BR Code, pay
 * it as the sandbox payer, watch the USDC arrive (credited only once the delivery confirms),
 * the same code on a retry, every band, expiry and bad input.
 */
let service: LocalService;
let org: TestOrganization;
let other: TestOrganization;
let seq = 0;
const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;

async function settled(apiKey: string, onRampId: string, timeoutMs = 20_000): Promise<Record<string, any>> {
  return strictly(deepStrict(OnRampStatus), await untilSettled(service, apiKey, `/treasury/onramp/${encodeURIComponent(onRampId)}`, timeoutMs));
}

const stages = (body: Record<string, any>) => (body.timeline as { stage: string }[]).map((entry) => entry.stage);

function open(apiKey: string, amount: string, idempotencyKey = key('pix')) {
  return call(service, 'POST', '/treasury/onramp/pix', { apiKey, body: { idempotencyKey, amount: { amount } } });
}

function pay(apiKey: string, onRampId: string) {
  return call(service, 'POST', `/treasury/onramp/${encodeURIComponent(onRampId)}/simulate-payment`, { apiKey });
}

beforeAll(async () => {
  process.env.ONRAMP_PIX_EXPIRY_SECONDS = '20';
  service = await startTestService();
  org = await createTestOrganization(service);
  other = await createTestOrganization(service, 'approved', 'Other Org');
  for (const organization of [org, other]) {
    await setRateLimits(organization.organizationId, { burst: 100_000, perSecond: 10_000 });
  }
});

afterAll(async () => {
  try {
    await expectLedgerInvariant(org.organizationId);
  } finally {
    await service?.stop();
    delete process.env.ONRAMP_PIX_EXPIRY_SECONDS;
  }
});

describe('GET /treasury/onramp/pix/quote', () => {
  it('is indicative, on the home network, with limits and the provider', async () => {
    const { status, body } = await call(service, 'GET', '/treasury/onramp/pix/quote?amount=500.00', { apiKey: org.apiKey });
    expect(status).toBe(200);
    const quote = strictly(deepStrict(PixOnRampQuote), body);
    expect(quote).toMatchObject({
      sent: { amount: '50000', currency: 'BRL', scale: 2 },
      targetStablecoin: 'USDC',
      feeBps: pixFeeBps,
      chain: 'base',
      available: true,
      indicative: true,
      minimum: { amount: '1000', currency: 'BRL', scale: 2 },
      maximum: { amount: '1500000', currency: 'BRL', scale: 2 },
      provider: 'simulated-onramp',
    });
    expect(quote).not.toHaveProperty('reason');
    // 500 BRL at about 5.42 BRL per USDC: about 92 USDC before the fee.
    const net = BigInt(quote.net.amount);
    expect(net).toBeGreaterThan(90_000_000n);
    expect(net).toBeLessThan(94_000_000n);
    expect(quote.basePrice).toMatch(/^5\.\d{4}$/);
  });

  it('answers available false with a reason outside the limits (not an error)', async () => {
    for (const amount of ['9.99', '15000.01']) {
      const { status, body } = await call(service, 'GET', `/treasury/onramp/pix/quote?amount=${amount}`, { apiKey: org.apiKey });
      expect(status).toBe(200);
      expect(body.available).toBe(false);
      expect(body.reason).toMatch(/minimum|maximum/);
    }
  });

  it('refuses bad queries with 400 validation', async () => {
    for (const query of ['amount=10.001', 'amount=1e3', 'amount=-5', 'amount=10&currency=USD', '', 'amount=', `amount=${'9'.repeat(500)}`, 'amount=%00']) {
      const { status, body } = await call(service, 'GET', `/treasury/onramp/pix/quote?${query}`, { apiKey: org.apiKey });
      expect(status, query).toBe(400);
      expect(body.error, query).toBe('validation');
    }
  });
});

describe('POST /treasury/onramp/pix and the sandbox payer', () => {
  it('opens a BR Code, is paid by the simulated payer, and is credited once the delivery confirms', async () => {
    const before = await readBalance(org.organizationId);
    const opened = await open(org.apiKey, '250.00');
    expect(opened.status).toBe(202);
    const accepted = strictly(deepStrict(PixOnRampAccepted), opened.body);
    expect(accepted.status).toBe('AWAITING_PAYMENT');
    const instructions = accepted.instructions!;
    expect(brCodeValid(instructions.brCode)).toBe(true);
    const fields = brCodeFields(instructions.brCode);
    expect(fields.get('54')).toBe('250.00');
    expect(fields.get('53')).toBe('986');
    expect(fields.get('01')).toBe('12');
    expect(instructions.pay).toEqual({ amount: '25000', currency: 'BRL', scale: 2 });
    expect(instructions.receive.currency).toBe('USDC');
    expect(Date.parse(instructions.expiresAt)).toBeGreaterThan(Date.now());

    const paid = await pay(org.apiKey, accepted.onRampId);
    expect(paid.status).toBe(202);
    expect(strictly(deepStrict(SimulatedOnRampPayment), paid.body)).toMatchObject({ onRampId: accepted.onRampId, simulated: true });

    const done = await settled(org.apiKey, accepted.onRampId);
    expect(done.state).toBe('DELIVERED');
    expect(stages(done)).toEqual(['OPENING_COLLECTION', 'AWAITING_PAYMENT', 'PAYMENT_RECEIVED', 'CONVERTING', 'DELIVERING', 'DELIVERED']);
    // The price was fixed when the code was opened: what it promised is what arrives.
    expect(done.net).toEqual(instructions.receive);
    expect(BigInt(done.fee.amount)).toBe((BigInt(done.gross.amount) * BigInt(pixFeeBps)) / 10_000n);
    expect(done.fxProvider).toBe('simulated-fx');
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const after = await expectLedgerInvariant(org.organizationId);
    expect(after.available - before.available).toBe(BigInt(instructions.receive.amount));

    const again = await pay(org.apiKey, accepted.onRampId);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('not_simulatable');
    const listed = await call(service, 'GET', '/treasury/onramps?origin=pix', { apiKey: org.apiKey });
    expect(listed.body.onramps.map((row: { onRampId: string }) => row.onRampId)).toContain(accepted.onRampId);
  });

  it('returns the same code for the same key, refuses another body with the same key, and keeps keys per organization', async () => {
    const idempotencyKey = key('same');
    const first = await open(org.apiKey, '120.50', idempotencyKey);
    const second = await open(org.apiKey, '120.5', idempotencyKey);
    expect(second.status).toBe(202);
    expect(second.body.instructions.brCode).toBe(first.body.instructions.brCode);
    expect(second.body).toEqual(first.body);

    const reused = await open(org.apiKey, '121.00', idempotencyKey);
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('idempotency_key_reused');
    const elsewhere = await open(other.apiKey, '120.50', idempotencyKey);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error).toBe('idempotency_key_conflict');
    const wireWithIt = await call(service, 'POST', '/treasury/onramp', { apiKey: org.apiKey, body: { idempotencyKey, amount: { amount: '120.50', currency: 'USD' } } });
    expect(wireWithIt.body.error).toBe('idempotency_key_conflict');

    expect((await pay(other.apiKey, idempotencyKey)).status).toBe(404);
    expect((await pay(org.apiKey, idempotencyKey)).status).toBe(202);
    expect((await settled(org.apiKey, idempotencyKey)).state).toBe('DELIVERED');
  });

  it('opens one code for identical requests racing', async () => {
    const idempotencyKey = key('race');
    const answers = await Promise.all(Array.from({ length: 5 }, () => open(org.apiKey, '88.00', idempotencyKey)));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202]);
    expect(new Set(answers.map((answer) => answer.body.instructions.brCode)).size).toBe(1);
    expect((await pay(org.apiKey, idempotencyKey)).status).toBe(202);
    expect((await settled(org.apiKey, idempotencyKey)).state).toBe('DELIVERED');
  });

  it('is strict and within the limits: 400 and nothing stored otherwise', async () => {
    const bodies: unknown[] = [
      { idempotencyKey: key('low'), amount: { amount: '9.99' } },
      { idempotencyKey: key('high'), amount: { amount: '15000.01' } },
      { idempotencyKey: key('dec'), amount: { amount: '10.001' } },
      { idempotencyKey: key('usd'), amount: { amount: '100', currency: 'USD' } },
      { idempotencyKey: key('extra'), amount: { amount: '100' }, note: 'x' },
      { idempotencyKey: key('nested'), amount: { amount: '100', extra: true } },
      { idempotencyKey: key('num'), amount: { amount: 100 } },
      { idempotencyKey: `dep-${key('d')}`, amount: { amount: '100' } },
      { amount: { amount: '100' } },
      { idempotencyKey: key('huge'), amount: { amount: '9'.repeat(60) } },
    ];
    for (const body of bodies) {
      const answer = await call(service, 'POST', '/treasury/onramp/pix', { apiKey: org.apiKey, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error, JSON.stringify(body)).toBe('validation');
      const id = (body as { idempotencyKey?: string }).idempotencyKey;
      if (id) expect((await call(service, 'GET', `/treasury/onramp/${id}`, { apiKey: org.apiKey })).status).toBe(404);
    }
  });
});

describe('outcome bands (the cents of the BRL amount)', () => {
  it('97: the code cannot be opened: 422 pix_onramp_unavailable, nothing stored, the key still free', async () => {
    const idempotencyKey = key('band97');
    const refused = await open(org.apiKey, '100.97', idempotencyKey);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('pix_onramp_unavailable');
    expect((await call(service, 'GET', `/treasury/onramp/${idempotencyKey}`, { apiKey: org.apiKey })).status).toBe(404);
    const retried = await open(org.apiKey, '100.00', idempotencyKey);
    expect(retried.status).toBe(202);
    await pay(org.apiKey, idempotencyKey);
    expect((await settled(org.apiKey, idempotencyKey)).state).toBe('DELIVERED');
  });

  it('92: paid, then returned before conversion: REFUNDED, nothing credited', async () => {
    const before = await readBalance(org.organizationId);
    const opened = await open(org.apiKey, '100.92');
    await pay(org.apiKey, opened.body.onRampId);
    const done = await settled(org.apiKey, opened.body.onRampId);
    expect(done.state).toBe('REFUNDED');
    expect(stages(done)).toEqual(['OPENING_COLLECTION', 'AWAITING_PAYMENT', 'PAYMENT_RECEIVED', 'REFUNDED']);
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
  });

  it('94: the delivery is unanswered: IN_DOUBT, nothing credited', async () => {
    const before = await readBalance(org.organizationId);
    const opened = await open(org.apiKey, '100.94');
    await pay(org.apiKey, opened.body.onRampId);
    const done = await settled(org.apiKey, opened.body.onRampId);
    expect(done.state).toBe('IN_DOUBT');
    expect(done.failure).toBe('delivery_unanswered');
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
  });
});

describe('expiry', () => {
  it('a code not paid within its window ends EXPIRED and can no longer be paid', async () => {
    process.env.ONRAMP_PIX_EXPIRY_SECONDS = '1';
    let opened;
    try {
      opened = await open(org.apiKey, '75.00');
    } finally {
      process.env.ONRAMP_PIX_EXPIRY_SECONDS = '20';
    }
    const done = await settled(org.apiKey, opened.body.onRampId);
    expect(done.state).toBe('EXPIRED');
    expect(stages(done)).toEqual(['OPENING_COLLECTION', 'AWAITING_PAYMENT', 'EXPIRED']);
    const late = await pay(org.apiKey, opened.body.onRampId);
    expect(late.status).toBe(409);
    expect(late.body.error).toBe('not_simulatable');
  });

  it('unknown ids are 404 for simulate-payment', async () => {
    const missing = await pay(org.apiKey, 'no-such-onramp');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('not_found');
  });
});
