import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { expectLedgerInvariant, expectLedgerInvariantForAll } from '../support/ledgerInvariant.ts';
import { strictly } from '../support/strictSchema.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { convertFloor, fraction } from '#domain/money.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { offRampFxBufferBps, priceOffRamp } from '#domain/offRampPricing.ts';
import { offRampAcceptedEvent } from '#operations/offRamp/intake.ts';
import { offRampStatusView, type OffRampRecord } from '#operations/offRamp/view.ts';
import { getOffRampBeneficiary, offRampBeneficiaryEntity } from '#store/offRampBeneficiaries.ts';
import { createOperation } from '#store/operations.ts';
import { reloadConfig } from '#platform/config.ts';
import { batchPutAll, dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { creditDeposit, listJournalEntries, readBalance } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import {
  createBeneficiary, createOffRamp, getOffRamp, getOffRampQuote, listBeneficiaries, listOffRamps,
} from '#contract/routes.ts';
import { until } from '../support/eventually.ts';

let service: LocalService;
let org: TestOrganization;
let other: TestOrganization;
let seq = 0;

const [eurBody, gbpBody, usdBody] = sampleOffRampBeneficiaries as unknown as [Record<string, string>, Record<string, string>, Record<string, string>];
let eur: string;
let usd: string;
let gbp: string;
let otherEur: string;

const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;
const usdc = (whole: bigint) => whole * 1_000_000n;

async function fund(organizationId: string, amount: bigint) {
  await creditDeposit({ organizationId, depositId: key('dep'), amount, rail: 'wire', memo: 'test deposit' });
}

async function unlimited(organizationId: string) {
  await setRateLimits(organizationId, { burst: 100_000, perSecond: 10_000 });
}

async function register(apiKey: string, body: Record<string, unknown>) {
  return call(service, 'POST', '/treasury/beneficiaries', { apiKey, body });
}

async function quote(apiKey: string, amount: string, beneficiaryId: string) {
  return call(service, 'GET', `/treasury/offramp/quote?amount=${encodeURIComponent(amount)}&beneficiaryId=${encodeURIComponent(beneficiaryId)}`, { apiKey });
}

function offRamp(beneficiaryId: string, overrides: Record<string, unknown> = {}) {
  return { idempotencyKey: key('ofr'), amount: { amount: '100.00', currency: 'USDC' }, beneficiaryId, ...overrides };
}

async function send(apiKey: string, body: Record<string, unknown>) {
  return call(service, 'POST', '/treasury/offramp', { apiKey, body });
}

/** Polls GET /treasury/offramp/:id until it has ended (`state` is set). */
async function ended(apiKey: string, offRampId: string, timeoutMs = 20_000) {
  // The off-ramp status has no `running`: it has ended once `state` is set.
  const body = await untilSettled(service, apiKey, `/treasury/offramp/${encodeURIComponent(offRampId)}`, timeoutMs, (status) => Boolean(status.state));
  return strictly(getOffRamp.responses[200]!.schema!, body);
}

const stages = (body: Record<string, any>) => body.timeline.map((entry: { stage: string }) => entry.stage);
const paidPath = ['PULLING', 'PULLED', 'DEPOSITING', 'CREDITED', 'CONVERTING', 'SETTLING', 'PAYING', 'PAID'];

async function auditTypes(organizationId: string, offRampId: string, wanted: string, timeoutMs = 10_000): Promise<{ type: string; data: unknown }[]> {
  return until(
    async () => {
      const { Items } = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
          ExpressionAttributeValues: { ':pk': `ORG#${organizationId}`, ':audit': 'AUDIT#' },
        }),
      );
      return (Items ?? [])
        .filter((item) => (item.data as { offRampId?: string })?.offRampId === offRampId)
        .map((item) => ({ type: item.type as string, data: item.data }));
    },
    (found) => found.some((event) => event.type === wanted),
    { what: `${wanted} in the audit trail of ${offRampId}`, timeoutMs, intervalMs: 100 },
  );
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  other = await createTestOrganization(service, 'approved', 'Other Org');
  await unlimited(org.organizationId);
  await unlimited(other.organizationId);
  await fund(org.organizationId, usdc(100_000n));
  eur = (await register(org.apiKey, eurBody)).body.id;
  usd = (await register(org.apiKey, usdBody)).body.id;
  gbp = (await register(org.apiKey, gbpBody)).body.id;
  otherEur = (await register(other.apiKey, eurBody)).body.id;
});

afterAll(async () => {
  try {
    expect(await expectLedgerInvariantForAll()).toBeGreaterThan(0);
  } finally {
    await service?.stop();
  }
});

describe('capabilities', () => {
  it('publishes off-ramps as simulated', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    const offramp = body.features.find((f: { feature: string }) => f.feature === 'offramp');
    expect(offramp.status).toBe('simulated');
  });
});

describe('beneficiaries', () => {
  it('registers every field as sent (codes upper-cased), ignores unknown fields, and lists it', async () => {
    const { status, body } = await register(org.apiKey, { ...eurBody, country: 'de', currency: 'eur', nickname: 'ignored' });
    expect(status).toBe(201);
    const view = strictly(createBeneficiary.responses[201]!.schema!, body);
    expect(view.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(view).toMatchObject({ ...eurBody, country: 'DE', currency: 'EUR' });
    expect(Date.parse(view.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(view.nickname).toBeUndefined();

    const list = await call(service, 'GET', '/treasury/beneficiaries', { apiKey: org.apiKey });
    expect(list.status).toBe(200);
    strictly(listBeneficiaries.responses[200]!.schema!, list.body);
    expect(list.body.count).toBe(list.body.beneficiaries.length);
    expect(list.body.beneficiaries).toContainEqual(view);
  });

  it('has no idempotency: the same body twice registers twice', async () => {
    const before = (await call(service, 'GET', '/treasury/beneficiaries', { apiKey: org.apiKey })).body.count;
    const a = await register(org.apiKey, usdBody);
    const b = await register(org.apiKey, usdBody);
    expect(a.body.id).not.toBe(b.body.id);
    expect((await call(service, 'GET', '/treasury/beneficiaries', { apiKey: org.apiKey })).body.count).toBe(before + 2);
  });

  it('registers a well-formed account nothing verifies, even in a currency off-ramps do not pay', async () => {
    const { status, body } = await register(org.apiKey, { ...usdBody, accountId: '1', currency: 'JPY' });
    expect(status).toBe(201);
    expect(body.currency).toBe('JPY');
  });

  it('refuses every malformed field with 400 validation and stores nothing', async () => {
    const before = (await call(service, 'GET', '/treasury/beneficiaries', { apiKey: org.apiKey })).body.count;
    const bad: [string, unknown][] = [
      ['name', ''], ['name', 'x'.repeat(141)], ['accountId', ''], ['bic', 'ABCDEFG'], ['bic', 'ABCDEFGHIJKL'], ['bankName', ''],
      ['city', ''], ['addressLine', 'x'.repeat(141)], ['country', 'DEU'], ['country', 'D1'], ['currency', 'EU'], ['currency', 'EURO'], ['name', 42],
    ];
    for (const [field, value] of bad) {
      const { status, body } = await register(org.apiKey, { ...eurBody, [field]: value });
      expect(status, `${field}=${JSON.stringify(value)}`).toBe(400);
      expect(body.error).toBe('validation');
      expect(body.issues[0].path).toEqual([field]);
    }
    for (const field of Object.keys(eurBody)) {
      const { [field]: _gone, ...rest } = eurBody;
      const { status, body } = await register(org.apiKey, rest);
      expect(status, `without ${field}`).toBe(400);
      expect(body.error).toBe('validation');
    }
    const raw = await call(service, 'POST', '/treasury/beneficiaries', { apiKey: org.apiKey, rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(raw.status).toBeGreaterThanOrEqual(400);
    expect(raw.status).toBeLessThan(500);
    expect((await call(service, 'GET', '/treasury/beneficiaries', { apiKey: org.apiKey })).body.count).toBe(before);
  });

  it('needs KYB to register; another organization never sees them', async () => {
    const pending = await onboardOrganization({ name: 'Pending Org', kybStatus: 'pending' });
    const refused = await register(pending.apiKey.apiKey, eurBody);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('kyb_required');
    const theirs = await call(service, 'GET', '/treasury/beneficiaries', { apiKey: other.apiKey });
    expect(theirs.body.beneficiaries.map((b: { id: string }) => b.id)).toEqual([otherEur]);
  });
});

describe('a bounded list, never deleted (decision 108)', () => {
  it('the 500th beneficiary is registered and the 501st is 409 conflict with the limit; the list at the cap stays well under 1 MB', async () => {
    const full = await createTestOrganization(service, 'approved', 'Full Beneficiaries Org');
    const longest = { ...eurBody, name: 'n'.repeat(140), accountId: 'a'.repeat(140), bic: 'B'.repeat(11), bankName: 'b'.repeat(140), city: 'c'.repeat(140), addressLine: 'l'.repeat(140) };
    // 499 written straight into the table, as an organization from before the cap holds them: counted at the next registration.
    const at = new Date().toISOString();
    await batchPutAll(Array.from({ length: 499 }, () => {
      const id = randomUUID();
      return { ...keys.offRampBeneficiary(full.organizationId, id), entity: offRampBeneficiaryEntity, organizationId: full.organizationId, id, ...longest, country: 'DE', currency: 'EUR', createdAt: at };
    }));
    const last = await register(full.apiKey, longest);
    expect(last.status, JSON.stringify(last.body)).toBe(201);
    const refused = await register(full.apiKey, longest);
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'conflict', message: expect.stringContaining('500 off-ramp beneficiaries'), limit: 500 });
    const atCap = await call(service, 'GET', '/treasury/beneficiaries', { apiKey: full.apiKey });
    expect(atCap.body.count).toBe(500);
    expect(Buffer.byteLength(JSON.stringify(atCap.body))).toBeLessThan(500_000);
    // Seeding 499 of the largest beneficiaries and counting them once takes a while on a busy machine.
  }, 120_000);
});

describe('GET /treasury/offramp/quote', () => {
  it('EUR: fee, delivery fee, net through the buffered rate, a single-use quote id for about a minute', async () => {
    const before = Date.now();
    const { status, body } = await quote(org.apiKey, '250.5', eur);
    expect(status).toBe(200);
    const view = strictly(getOffRampQuote.responses[200]!.schema!, body);
    expect(view.pulled).toEqual({ amount: '250500000', currency: 'USDC', scale: 6 });
    expect(view.settlementCurrency).toBe('EUR');
    expect(view.atPar).toBe(false);
    expect(view.feeBps).toBe(50);
    expect(view.fee).toEqual({ amount: String((250_500_000n * 50n) / 10_000n), currency: 'USDC', scale: 6 });
    expect(view.deliveryFee.currency).toBe('USDC');
    expect(view.minimum).toEqual({ amount: '10000000', currency: 'USDC', scale: 6 });
    expect(view.fxBufferBps).toBe(offRampFxBufferBps);
    expect(view.quoteId).toMatch(/^oq_[A-Za-z0-9-]{8,80}$/);
    expect(view.net.currency).toBe('EUR');
    expect(view.net.scale).toBe(2);
    // Within the simulated rate's range (0.9213 ± 50 bps), less the buffer.
    const usable = 250_500_000n - BigInt(view.fee.amount) - BigInt(view.deliveryFee.amount);
    const low = convertFloor(usable, 6, fraction(9213n * 9950n * 9900n, 10n ** 12n), 2);
    const high = convertFloor(usable, 6, fraction(9213n * 10050n * 9900n, 10n ** 12n), 2);
    expect(BigInt(view.net.amount)).toBeGreaterThanOrEqual(low);
    expect(BigInt(view.net.amount)).toBeLessThanOrEqual(high);
    expect(Date.parse(view.expiresAt)).toBeGreaterThan(before);
    expect(Date.parse(view.expiresAt)).toBeLessThanOrEqual(Date.now() + 60_000);
  });

  it('USD is at par: net = (pulled − fee − delivery fee) floored to cents, no buffer', async () => {
    const { body } = await quote(org.apiKey, '100.123456', usd);
    expect(body.atPar).toBe(true);
    const usable = 100_123_456n - BigInt(body.fee.amount) - BigInt(body.deliveryFee.amount);
    expect(body.net).toEqual({ amount: String(usable / 10_000n), currency: 'USD', scale: 2 });
    expect(body.fxBufferBps).toBeUndefined();
    expect(body.quoteId).toBeDefined();
  });

  it('below the minimum: an answer (not an error) with no net and no quote id', async () => {
    const { status, body } = await quote(org.apiKey, '9.99', eur);
    expect(status).toBe(200);
    expect(body.net).toBeUndefined();
    expect(body.quoteId).toBeUndefined();
    expect(body.expiresAt).toBeUndefined();
    expect(body.minimum.amount).toBe('10000000');
  });

  it('bad queries, unknown and foreign beneficiaries and unserved currencies are 400 validation', async () => {
    const jpy = (await register(org.apiKey, { ...usdBody, currency: 'JPY' })).body.id;
    const cases: [string, string][] = [
      ['/treasury/offramp/quote', 'amount'],
      [`/treasury/offramp/quote?amount=10`, 'beneficiaryId'],
      [`/treasury/offramp/quote?beneficiaryId=${eur}`, 'amount'],
      [`/treasury/offramp/quote?amount=1.0000001&beneficiaryId=${eur}`, 'amount'],
      [`/treasury/offramp/quote?amount=-1&beneficiaryId=${eur}`, 'amount'],
      [`/treasury/offramp/quote?amount=0&beneficiaryId=${eur}`, 'amount'],
      [`/treasury/offramp/quote?amount=1e3&beneficiaryId=${eur}`, 'amount'],
      [`/treasury/offramp/quote?amount=10&beneficiaryId=not-a-uuid`, 'beneficiaryId'],
      [`/treasury/offramp/quote?amount=10&beneficiaryId=${randomUUID()}`, 'beneficiaryId'],
      [`/treasury/offramp/quote?amount=10&beneficiaryId=${otherEur}`, 'beneficiaryId'],
      [`/treasury/offramp/quote?amount=10&beneficiaryId=${jpy}`, 'beneficiaryId'],
    ];
    const answers = [];
    for (const [path, field] of cases) {
      const { status, body } = await call(service, 'GET', path, { apiKey: org.apiKey });
      expect(status, path).toBe(400);
      expect(body.error).toBe('validation');
      expect(body.issues[0].path, path).toEqual(['query', field]);
      answers.push(body);
    }
    // Another organization's beneficiary reads exactly like one that does not exist.
    expect(answers[9]).toEqual(answers[8]);
  });
});

describe('an off-ramp, end to end', () => {
  it('EUR with a quote: 202 PULLING, then every stage in order to PAID, paid the quoted net, fee realized, offramp.paid written', async () => {
    const q = (await quote(org.apiKey, '100.00', eur)).body;
    const before = await readBalance(org.organizationId);
    const body = offRamp(eur, { quoteId: q.quoteId });
    const accepted = await send(org.apiKey, body);
    expect(accepted.status).toBe(202);
    expect(strictly(createOffRamp.responses[202]!.schema!, accepted.body)).toEqual({ offRampId: body.idempotencyKey, status: 'PULLING' });

    const done = await ended(org.apiKey, body.idempotencyKey);
    expect(done.state).toBe('PAID');
    expect(done.stage).toBe('PAID');
    expect(done.closedAs).toBe('paid');
    expect(stages(done)).toEqual(paidPath);
    expect(done.timeline.map((entry: { at: number }) => entry.at)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(done.timeline[0].detail).toContain(q.quoteId);
    expect(done.net).toEqual(q.net);
    expect(done.fee).toEqual(q.fee);
    expect(done.deliveryFee).toEqual(q.deliveryFee);
    expect(done.credited).toEqual({ amount: String(100_000_000n - BigInt(q.fee.amount)), currency: 'USDC', scale: 6 });
    expect(done.fxBufferBps).toBe(offRampFxBufferBps);
    expect(done.slippage).toBeUndefined();

    const after = await readBalance(org.organizationId);
    expect(before.available - after.available).toBe(100_000_000n);
    expect(after.held).toBe(before.held);
    const entries = (await listJournalEntries(org.organizationId)).filter((entry) => entry.operation.id === body.idempotencyKey);
    expect(entries.map((entry) => entry.entryId).sort()).toEqual([`offramp:${body.idempotencyKey}:capture`, `offramp:${body.idempotencyKey}:hold`]);
    const capture = entries.find((entry) => entry.entryId.endsWith(':capture'))!;
    expect(capture.legs).toContainEqual({ account: 'revenue:fees', amount: BigInt(q.fee.amount) });
    await expectLedgerInvariant(org.organizationId);

    const events = await auditTypes(org.organizationId, body.idempotencyKey, 'offramp.paid');
    expect(events.map((event) => event.type)).toEqual(expect.arrayContaining(['offramp.accepted', 'offramp.paid']));
    expect(events.find((event) => event.type === 'offramp.paid')!.data).toEqual(done);
  });

  it('USD without a quote: paid at par, whatever the conversion produces', async () => {
    const body = offRamp(usd, { amount: { amount: '50.55', currency: 'USDC' } });
    expect((await send(org.apiKey, body)).status).toBe(202);
    const done = await ended(org.apiKey, body.idempotencyKey);
    expect(done.state).toBe('PAID');
    const usable = 50_550_000n - BigInt(done.fee.amount) - BigInt(done.deliveryFee.amount);
    expect(done.net).toEqual({ amount: String(usable / 10_000n), currency: 'USD', scale: 2 });
    expect(done.fxBufferBps).toBeUndefined();
  });

  it('GBP without a quote pays through the conversion', async () => {
    const body = offRamp(gbp);
    expect((await send(org.apiKey, body)).status).toBe(202);
    const done = await ended(org.apiKey, body.idempotencyKey);
    expect(done.state).toBe('PAID');
    expect(done.net.currency).toBe('GBP');
    expect(BigInt(done.net.amount)).toBeGreaterThan(0n);
  });

  it('chain: the home network is accepted, any other is 422 not_home_chain', async () => {
    const home = (await homeWalletOf(org.organizationId)).chain!;
    const ok = await send(org.apiKey, offRamp(eur, { chain: home }));
    expect(ok.status).toBe(202);
    const refused = await send(org.apiKey, offRamp(eur, { chain: home === 'ethereum' ? 'polygon' : 'ethereum' }));
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('not_home_chain');
    await ended(org.apiKey, ok.body.offRampId);
  });
});

describe('outcome bands', () => {
  const cases: [string, string, string[], string][] = [
    ['100.91', 'FAILED', ['PULLING', 'PULLED', 'DEPOSITING', 'FAILED'], 'beneficiary_refused'],
    ['100.92', 'REFUNDED', ['PULLING', 'PULLED', 'DEPOSITING', 'CREDITED', 'CONVERTING', 'SETTLING', 'PAYING', 'REFUNDING', 'REFUNDED'], 'returned'],
    ['100.93', 'PAID', paidPath, 'paid'],
    ['100.94', 'IN_DOUBT', ['PULLING', 'PULLED', 'DEPOSITING', 'IN_DOUBT'], 'deposit_unanswered'],
    ['100.96', 'PAID', paidPath, 'paid'],
  ];
  for (const [amount, final, path, closedAs] of cases) {
    it(`${amount} USDC ends ${final}, with the right money`, async () => {
      const before = await readBalance(org.organizationId);
      const body = offRamp(eur, { amount: { amount, currency: 'USDC' } });
      expect((await send(org.apiKey, body)).status).toBe(202);
      const done = await ended(org.apiKey, body.idempotencyKey, 30_000);
      expect(done.state).toBe(final);
      expect(stages(done)).toEqual(path);
      expect(done.closedAs).toBe(closedAs);
      const after = await readBalance(org.organizationId);
      const pulled = BigInt(Math.round(Number(amount) * 100)) * 10_000n;
      if (final === 'PAID') expect(before.available - after.available).toBe(pulled);
      if (final === 'FAILED' || final === 'REFUNDED') {
        expect(after.available).toBe(before.available);
        expect(after.held).toBe(before.held);
      }
      if (final === 'IN_DOUBT') {
        // Parked with its USDC held, never sent again.
        expect(after.held - before.held).toBe(pulled);
        expect(before.available - after.available).toBe(pulled);
      }
      if (amount === '100.96') expect(done.slippage).toEqual({ amount: '100', currency: 'EUR', scale: 2 });
      else expect(done.slippage).toBeUndefined();
      await expectLedgerInvariant(org.organizationId);
    });
  }
});

describe('quotes bound to an off-ramp', () => {
  it('a used quote is 422 quote_already_used for another off-ramp', async () => {
    const q = (await quote(org.apiKey, '20', eur)).body;
    const first = await send(org.apiKey, offRamp(eur, { amount: { amount: '20', currency: 'USDC' }, quoteId: q.quoteId }));
    expect(first.status).toBe(202);
    const second = await send(org.apiKey, offRamp(eur, { amount: { amount: '20', currency: 'USDC' }, quoteId: q.quoteId }));
    expect(second.status).toBe(422);
    expect(second.body.error).toBe('quote_already_used');
    await ended(org.apiKey, first.body.offRampId);
  });

  it('two off-ramps racing for one quote: exactly one is accepted', async () => {
    const q = (await quote(org.apiKey, '21', eur)).body;
    const bodies = Array.from({ length: 4 }, () => offRamp(eur, { amount: { amount: '21', currency: 'USDC' }, quoteId: q.quoteId }));
    const answers = await Promise.all(bodies.map((body) => send(org.apiKey, body)));
    const accepted = answers.filter((answer) => answer.status === 202);
    expect(accepted).toHaveLength(1);
    for (const answer of answers.filter((a) => a.status !== 202)) expect([answer.status, answer.body.error]).toEqual([422, 'quote_already_used']);
    const done = await ended(org.apiKey, accepted[0]!.body.offRampId);
    expect(done.net).toEqual(q.net);
  });

  it('an expired quote is refused like a used one, and nothing is stored', async () => {
    process.env.QUOTE_TTL_SECONDS = '1';
    reloadConfig();
    let q;
    try {
      q = (await quote(org.apiKey, '20', eur)).body;
    } finally {
      delete process.env.QUOTE_TTL_SECONDS;
      reloadConfig();
    }
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, Date.parse(q.expiresAt) - Date.now()) + 50));
    const body = offRamp(eur, { amount: { amount: '20', currency: 'USDC' }, quoteId: q.quoteId });
    const refused = await send(org.apiKey, body);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('quote_already_used');
    expect((await call(service, 'GET', `/treasury/offramp/${body.idempotencyKey}`, { apiKey: org.apiKey })).status).toBe(404);
  });

  it('another amount or beneficiary is quote_mismatch; an unknown or foreign quote is quote_not_found', async () => {
    const q = (await quote(org.apiKey, '20', eur)).body;
    let answer = await send(org.apiKey, offRamp(eur, { amount: { amount: '20.01', currency: 'USDC' }, quoteId: q.quoteId }));
    expect([answer.status, answer.body.error]).toEqual([422, 'quote_mismatch']);
    answer = await send(org.apiKey, offRamp(gbp, { amount: { amount: '20', currency: 'USDC' }, quoteId: q.quoteId }));
    expect([answer.status, answer.body.error]).toEqual([422, 'quote_mismatch']);
    answer = await send(org.apiKey, offRamp(eur, { amount: { amount: '20', currency: 'USDC' }, quoteId: `oq_${randomUUID()}` }));
    expect([answer.status, answer.body.error]).toEqual([422, 'quote_not_found']);
    const theirs = (await quote(other.apiKey, '20', otherEur)).body;
    answer = await send(org.apiKey, offRamp(eur, { amount: { amount: '20', currency: 'USDC' }, quoteId: theirs.quoteId }));
    expect([answer.status, answer.body.error]).toEqual([422, 'quote_not_found']);
    // The quote was never spent by those refusals.
    const good = await send(org.apiKey, offRamp(eur, { amount: { amount: '20', currency: 'USDC' }, quoteId: q.quoteId }));
    expect(good.status).toBe(202);
    await ended(org.apiKey, good.body.offRampId);
  });
});

describe('idempotency', () => {
  it('the same body again answers the same off-ramp and moves money once; another body with the key is 409', async () => {
    const body = offRamp(eur, { amount: { amount: '30', currency: 'USDC' } });
    const first = await send(org.apiKey, body);
    expect(first.status).toBe(202);
    await ended(org.apiKey, body.idempotencyKey);
    const before = await readBalance(org.organizationId);
    const again = await send(org.apiKey, { ...body, ignored: true });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ offRampId: body.idempotencyKey, status: 'PAID' });
    expect(await readBalance(org.organizationId)).toEqual(before);
    const changed = await send(org.apiKey, { ...body, amount: { amount: '31', currency: 'USDC' } });
    expect(changed.status).toBe(409);
    expect(changed.body.error).toBe('idempotency_key_conflict');
    const journal = (await listJournalEntries(org.organizationId)).filter((entry) => entry.operation.id === body.idempotencyKey);
    expect(journal).toHaveLength(2);
  });

  it('a key another organization used is 409 idempotency_key_conflict, and theirs stays theirs', async () => {
    await fund(other.organizationId, usdc(100n));
    const body = offRamp(otherEur, { amount: { amount: '20', currency: 'USDC' } });
    expect((await send(other.apiKey, body)).status).toBe(202);
    const mine = await send(org.apiKey, { ...body, beneficiaryId: eur });
    expect(mine.status).toBe(409);
    expect(mine.body.error).toBe('idempotency_key_conflict');
    const peek = await call(service, 'GET', `/treasury/offramp/${body.idempotencyKey}`, { apiKey: org.apiKey });
    expect(peek.status).toBe(404);
    expect(peek.body.error).toBe('not_found');
    await ended(other.apiKey, body.idempotencyKey);
  });

  it('identical requests racing make one off-ramp', async () => {
    const body = offRamp(eur, { amount: { amount: '25', currency: 'USDC' } });
    const answers = await Promise.all(Array.from({ length: 5 }, () => send(org.apiKey, body)));
    for (const answer of answers) expect(answer.status).toBe(202);
    await ended(org.apiKey, body.idempotencyKey);
    const journal = (await listJournalEntries(org.organizationId)).filter((entry) => entry.operation.id === body.idempotencyKey);
    expect(journal.map((entry) => entry.entryId).sort()).toEqual([`offramp:${body.idempotencyKey}:capture`, `offramp:${body.idempotencyKey}:hold`]);
  });
});

describe('a request that died after creating its off-ramp', () => {
  it('is started from its offramp.accepted event and runs to its end', async () => {
    const offRampId = key('orphan');
    const price = priceOffRamp({ pulled: 40_000_000n, currency: 'EUR' });
    const { organizationId: _owner, ...payee } = (await getOffRampBeneficiary(org.organizationId, eur))!;
    const at = new Date().toISOString();
    const record: OffRampRecord = {
      organizationId: org.organizationId, kind: 'offramp', id: offRampId, status: 'PULLING', requestHash: 'crashed-request',
      timeline: [{ status: 'PULLING', at }], createdAt: at, updatedAt: at,
      amount: '40000000', beneficiaryId: eur, beneficiary: payee, currency: 'EUR',
      fee: price.fee.toString(), deliveryFee: price.deliveryFee.toString(), quoteId: null, quotedNet: null, fxBufferBps: null,
      network: (await homeWalletOf(org.organizationId)).chain!, depositAttempts: 0,
    };
    // What POST /treasury/offramp commits, without the workflow start that the crash prevented.
    await createOperation(record, { event: { type: offRampAcceptedEvent, data: offRampStatusView(record) } });
    const done = await ended(org.apiKey, offRampId);
    expect(done.state).toBe('PAID');
    await expectLedgerInvariant(org.organizationId);
  });
});

describe('funds', () => {
  it('an off-ramp larger than the balance is accepted, then FAILED insufficient_funds with nothing moved', async () => {
    const poor = await createTestOrganization(service, 'approved', 'Poor Org');
    await unlimited(poor.organizationId);
    await fund(poor.organizationId, usdc(15n));
    const beneficiary = (await register(poor.apiKey, eurBody)).body.id;
    const body = offRamp(beneficiary, { amount: { amount: '20', currency: 'USDC' } });
    expect((await send(poor.apiKey, body)).status).toBe(202);
    const done = await ended(poor.apiKey, body.idempotencyKey);
    expect(done.state).toBe('FAILED');
    expect(done.closedAs).toBe('insufficient_funds');
    expect(stages(done)).toEqual(['PULLING', 'FAILED']);
    const balance = await expectLedgerInvariant(poor.organizationId);
    expect(balance.available).toBe(usdc(15n));
    expect(balance.held).toBe(0n);
  });

  it('MUST HOLD: concurrent off-ramps beyond the balance: only those that fit are paid, the balance never goes below zero', async () => {
    const tight = await createTestOrganization(service, 'approved', 'Tight Org');
    await unlimited(tight.organizationId);
    await fund(tight.organizationId, usdc(100n));
    const beneficiary = (await register(tight.apiKey, eurBody)).body.id;
    const bodies = Array.from({ length: 6 }, () => offRamp(beneficiary, { amount: { amount: '30', currency: 'USDC' } }));
    const answers = await Promise.all(bodies.map((body) => send(tight.apiKey, body)));
    for (const answer of answers) expect(answer.status).toBe(202);
    const results = await Promise.all(bodies.map((body) => ended(tight.apiKey, body.idempotencyKey, 30_000)));
    const paid = results.filter((result) => result.state === 'PAID');
    const failed = results.filter((result) => result.state === 'FAILED');
    expect(paid).toHaveLength(3);
    expect(failed).toHaveLength(3);
    for (const result of failed) expect(result.closedAs).toBe('insufficient_funds');
    const balance = await expectLedgerInvariant(tight.organizationId);
    expect(balance.available).toBe(usdc(10n));
    expect(balance.held).toBe(0n);
  });
});

describe('GET /treasury/offramps', () => {
  it('walks newest first with cursors, no row twice; bad limits and cursors are 400', async () => {
    const lister = await createTestOrganization(service, 'approved', 'Lister Org');
    await unlimited(lister.organizationId);
    await fund(lister.organizationId, usdc(1_000n));
    const beneficiary = (await register(lister.apiKey, usdBody)).body.id;
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const body = offRamp(beneficiary, { amount: { amount: '11', currency: 'USDC' } });
      expect((await send(lister.apiKey, body)).status).toBe(202);
      ids.push(body.idempotencyKey);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const path: string = `/treasury/offramps?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const { status, body } = await call(service, 'GET', path, { apiKey: lister.apiKey });
      expect(status).toBe(200);
      strictly(listOffRamps.responses[200]!.schema!, body);
      expect(body.count).toBe(body.offramps.length);
      expect(body.hasMore).toBe(body.nextCursor !== null);
      for (const row of body.offramps) {
        expect(row.amount).toEqual({ amount: '11000000', currency: 'USDC', scale: 6 });
        expect(row.beneficiaryId).toBe(beneficiary);
        seen.push(row.offRampId);
      }
      cursor = body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    for (const path of ['/treasury/offramps?limit=0', '/treasury/offramps?limit=201', '/treasury/offramps?limit=x', '/treasury/offramps?cursor=']) {
      const { status, body } = await call(service, 'GET', path, { apiKey: lister.apiKey });
      expect(status, path).toBe(400);
      expect(body.error).toBe('validation');
    }
    const forged = await call(service, 'GET', '/treasury/offramps?cursor=abc.def', { apiKey: lister.apiKey });
    expect([forged.status, forged.body.error]).toEqual([400, 'invalid_cursor']);
    // Another organization's cursor is not ours to use.
    const page = (await call(service, 'GET', '/treasury/offramps?limit=1', { apiKey: lister.apiKey })).body;
    const stolen = await call(service, 'GET', `/treasury/offramps?cursor=${encodeURIComponent(page.nextCursor)}`, { apiKey: org.apiKey });
    expect([stolen.status, stolen.body.error]).toEqual([400, 'invalid_cursor']);
    const theirs = await call(service, 'GET', '/treasury/offramps', { apiKey: org.apiKey });
    expect(theirs.body.offramps.map((row: { offRampId: string }) => row.offRampId)).not.toContain(ids[0]);
    for (const id of ids) await ended(lister.apiKey, id);
  });

  it('an unknown off-ramp is 404 not_found', async () => {
    const { status, body } = await call(service, 'GET', `/treasury/offramp/${key('nope')}`, { apiKey: org.apiKey });
    expect([status, body.error]).toEqual([404, 'not_found']);
  });
});

describe('bad input on POST /treasury/offramp', () => {
  it('answers 400 validation for each malformed field and stores nothing', async () => {
    const before = (await call(service, 'GET', '/treasury/offramps?limit=200', { apiKey: org.apiKey })).body.count;
    const balance = await readBalance(org.organizationId);
    const good = offRamp(eur);
    const cases: [Record<string, unknown>, string[]][] = [
      [{ ...good, idempotencyKey: 'short' }, ['idempotencyKey']],
      [{ ...good, idempotencyKey: 'has space in it' }, ['idempotencyKey']],
      [{ ...good, idempotencyKey: undefined }, ['idempotencyKey']],
      [{ ...good, amount: undefined }, ['amount']],
      [{ ...good, amount: { amount: '10.0000001', currency: 'USDC' } }, ['amount', 'amount']],
      [{ ...good, amount: { amount: '10', currency: 'EURC' } }, ['amount', 'currency']],
      [{ ...good, amount: { amount: '10', currency: '' } }, ['amount', 'currency']],
      [{ ...good, amount: { amount: '-10', currency: 'USDC' } }, ['amount', 'amount']],
      [{ ...good, amount: { amount: 10, currency: 'USDC' } }, ['amount', 'amount']],
      [{ ...good, amount: { amount: '9.99', currency: 'USDC' } }, ['amount', 'amount']],
      [{ ...good, beneficiaryId: 'nope' }, ['beneficiaryId']],
      [{ ...good, beneficiaryId: randomUUID() }, ['beneficiaryId']],
      [{ ...good, beneficiaryId: otherEur }, ['beneficiaryId']],
      [{ ...good, chain: 'Base!' }, ['chain']],
      [{ ...good, quoteId: 'q_123456789' }, ['quoteId']],
    ];
    for (const [body, path] of cases) {
      const { status, body: answer } = await send(org.apiKey, body);
      expect(status, JSON.stringify(body)).toBe(400);
      expect(answer.error).toBe('validation');
      expect(answer.issues[0].path, JSON.stringify(body)).toEqual(path);
    }
    for (const raw of ['{', '[]', 'null', '"x"']) {
      const { status } = await call(service, 'POST', '/treasury/offramp', { apiKey: org.apiKey, rawBody: raw, headers: { 'content-type': 'application/json' } });
      expect(status, raw).toBeGreaterThanOrEqual(400);
      expect(status, raw).toBeLessThan(500);
    }
    expect((await call(service, 'GET', '/treasury/offramps?limit=200', { apiKey: org.apiKey })).body.count).toBe(before);
    expect(await readBalance(org.organizationId)).toEqual(balance);
    // Refused before anything was stored: the same key works afterwards.
    expect((await send(org.apiKey, good)).status).toBe(202);
    await ended(org.apiKey, good.idempotencyKey);
  });

  it('needs KYB', async () => {
    const pending = await onboardOrganization({ name: 'Pending Org 2', kybStatus: 'pending' });
    const { status, body } = await send(pending.apiKey.apiKey, offRamp(randomUUID()));
    expect([status, body.error]).toEqual([403, 'kyb_required']);
  });
});
