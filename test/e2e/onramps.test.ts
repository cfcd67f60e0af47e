import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { strictly, deepStrict } from '../support/strictSchema.ts';
import { depositReferenceOf } from '#domain/depositReference.ts';
import { wireFeeBps } from '#operations/onRamp/pricing.ts';
import { onRampCreateOptions, newOnRamp, wireInstructionsOf } from '#operations/onRamp/view.ts';
import { simulatedHouseAccounts } from '#domain/houseAccounts.ts';
import { createOperation } from '#store/operations.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { readBalance } from '#store/ledger.ts';
import { setRateLimit, setRateLimits } from '#store/organizations.ts';
import { newWalletId, walletItem } from '#store/wallets.ts';
import { OnRampAccepted, OnRampList, OnRampQuote, OnRampStatus } from '#schemas/deposits.ts';
import { SimulatedWire } from '#schemas/sandbox.ts';
import { until as waitUntil } from '../support/eventually.ts';

/**
 * Wire on-ramps end to end through HTTP, against DynamoDB Local and the real local workflow runner:
 * the issue's "done when" (a wire quoting the reference arrives as a `dep-` deposit and the balance
 * grows; an announced on-ramp is attributed and delivered), every outcome band, expiry, lists,
 * isolation and bad input.
 */
let service: LocalService;
let org: TestOrganization;
let other: TestOrganization;
let seq = 0;
const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;

const statusSchema = deepStrict(OnRampStatus);

async function settled(apiKey: string, onRampId: string, timeoutMs = 20_000): Promise<Record<string, any>> {
  return strictly(statusSchema, await untilSettled(service, apiKey, `/treasury/onramp/${encodeURIComponent(onRampId)}`, timeoutMs));
}

async function stageReached(apiKey: string, onRampId: string, stage: string, timeoutMs = 10_000): Promise<Record<string, any>> {
  return waitUntil(async () => (await call(service, 'GET', `/treasury/onramp/${encodeURIComponent(onRampId)}`, { apiKey })).body as Record<string, any>, (body) => body.stage === stage, {
    what: `on-ramp ${onRampId} at ${stage}`, timeoutMs, intervalMs: 25,
  });
}

const stages = (body: { timeline: { stage: string }[] }) => body.timeline.map((entry) => entry.stage);

function announce(apiKey: string, amount: string, currency = 'USD', idempotencyKey = key('onr')) {
  return call(service, 'POST', '/treasury/onramp', { apiKey, body: { idempotencyKey, amount: { amount, currency } } });
}

function wire(apiKey: string, amount: string, currency = 'USD') {
  return call(service, 'POST', '/treasury/onramps/simulate-wire', { apiKey, body: { amount: { amount, currency } } });
}

async function auditTypes(organizationId: string, onRampId: string, until: string): Promise<{ type: string; data: any }[]> {
  return waitUntil(
    async () => {
      const { Items } = await dynamo().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
          ExpressionAttributeValues: { ':pk': `ORG#${organizationId}`, ':audit': 'AUDIT#' },
        }),
      );
      return (Items ?? []).filter((item) => item.data?.onRampId === onRampId).map((item) => ({ type: item.type as string, data: item.data }));
    },
    (mine) => mine.some((event) => event.type === until),
    { what: `${until} in the audit trail of ${onRampId}`, timeoutMs: 10_000, intervalMs: 100 },
  );
}

beforeAll(async () => {
  // Short windows: an on-ramp left unpaid by a test ends instead of polling for a week.
  process.env.ONRAMP_WIRE_EXPIRY_SECONDS = '20';
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
    await expectLedgerInvariant(other.organizationId);
  } finally {
    await service?.stop();
    delete process.env.ONRAMP_WIRE_EXPIRY_SECONDS;
  }
});

describe('capabilities', () => {
  it('publishes onramp and onramp-pix as simulated', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    const statuses = Object.fromEntries(body.features.map((f: { feature: string; status: string }) => [f.feature, f.status]));
    expect(statuses.onramp).toBe('simulated');
    expect(statuses['onramp-pix']).toBe('simulated');
  });
});

describe('GET /treasury/onramp/quote', () => {
  it('prices USD at par: gross = amount, fee floored at the fee rate, net = gross − fee − deliveryFee', async () => {
    const { status, body } = await call(service, 'GET', '/treasury/onramp/quote?amount=1000.07&currency=USD', { apiKey: org.apiKey });
    expect(status).toBe(200);
    const quote = strictly(deepStrict(OnRampQuote), body);
    expect(quote.atPar).toBe(true);
    expect(quote.sent).toEqual({ amount: '100007', currency: 'USD', scale: 2 });
    expect(quote.gross).toEqual({ amount: '1000070000', currency: 'USDC', scale: 6 });
    const fee = (1_000_070_000n * BigInt(wireFeeBps)) / 10_000n;
    expect(quote.fee).toEqual({ amount: fee.toString(), currency: 'USDC', scale: 6 });
    expect(BigInt(quote.net.amount)).toBe(1_000_070_000n - fee - BigInt(quote.deliveryFee.amount));
    expect(quote.deliveryMethod).toBe('mint+transfer');
    expect(quote.minimum).toEqual({ amount: '1000', currency: 'USD', scale: 2 });
  });

  it('gives EUR without gross, fee or net (the rate is the one at conversion), and a quote below the minimum is not an error', async () => {
    const { status, body } = await call(service, 'GET', '/treasury/onramp/quote?amount=1&currency=EUR', { apiKey: org.apiKey });
    expect(status).toBe(200);
    expect(body.atPar).toBe(false);
    expect(body).not.toHaveProperty('gross');
    expect(body).not.toHaveProperty('fee');
    expect(body).not.toHaveProperty('net');
    expect(body.minimum).toEqual({ amount: '1000', currency: 'EUR', scale: 2 });
    expect(body.sent).toEqual({ amount: '100', currency: 'EUR', scale: 2 });
  });

  it('refuses a currency with no house account, extra decimals, hostile and huge input with 400, never 500', async () => {
    const queries = [
      'amount=100&currency=GBP',
      'amount=100&currency=usd',
      'amount=100.001&currency=USD',
      'amount=-1&currency=USD',
      'amount=1e5&currency=USD',
      `amount=${'9'.repeat(41)}&currency=USD`,
      `amount=${'9'.repeat(40)}&currency=USD`,
      'amount=1000000000.01&currency=USD',
      'amount=100',
      'currency=USD',
      'amount=100&currency=',
      `amount=100&currency=${encodeURIComponent("'; DROP TABLE--")}`,
      `amount=100&currency=${encodeURIComponent('\u0000\u202e')}`,
    ];
    for (const query of queries) {
      const { status, body } = await call(service, 'GET', `/treasury/onramp/quote?${query}`, { apiKey: org.apiKey });
      expect(status, query).toBe(400);
      expect(body.error, query).toBe('validation');
    }
    // The largest amount the service accepts (docs/decisions/072) is still priced exactly.
    const big = await call(service, 'GET', '/treasury/onramp/quote?amount=1000000000.00&currency=USD', { apiKey: org.apiKey });
    expect(big.status).toBe(200);
    expect(big.body.gross.amount).toBe('1000000000000000');
  });
});

describe('a wire quoting the reference with no deposit open', () => {
  it('reads the instructions, simulates the wire, and watches it arrive as a dep- deposit while the balance grows', async () => {
    const instructions = await call(service, 'GET', '/treasury/deposit-instructions', { apiKey: org.apiKey });
    expect(instructions.status).toBe(200);
    expect(instructions.body.reference).toBe(depositReferenceOf(org.organizationId));
    const before = await readBalance(org.organizationId);

    const simulated = await wire(org.apiKey, '250.00');
    expect(simulated.status).toBe(202);
    const answer = strictly(deepStrict(SimulatedWire), simulated.body);
    expect(answer).toMatchObject({ simulated: true, reference: instructions.body.reference, amount: { amount: '25000', currency: 'USD', scale: 2 }, disposition: 'pending' });
    expect(answer.onRampId).toMatch(/^dep-[0-9A-HJKMNP-TV-Z]{26}$/);

    const done = await settled(org.apiKey, answer.onRampId);
    expect(done.state).toBe('DELIVERED');
    expect(stages(done as never)).toEqual(['PAYMENT_RECEIVED', 'CONVERTING', 'DELIVERING', 'DELIVERED']);
    expect(done.gross).toEqual({ amount: '250000000', currency: 'USDC', scale: 6 });
    expect(BigInt(done.net.amount)).toBe(250_000_000n - BigInt(done.fee.amount));
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.instructions).toMatchObject({ reference: instructions.body.reference, accountName: expect.any(String) });

    const after = await expectLedgerInvariant(org.organizationId);
    expect(after.available - before.available).toBe(BigInt(done.net.amount));

    const deposits = await call(service, 'GET', '/treasury/onramps?origin=deposit', { apiKey: org.apiKey });
    expect(deposits.body.onramps.map((row: { onRampId: string }) => row.onRampId)).toContain(answer.onRampId);
  });

  it('parks a wire below the minimum: nothing starts, nothing is credited', async () => {
    const before = await readBalance(org.organizationId);
    const simulated = await wire(org.apiKey, '9.99');
    expect(simulated.status).toBe(202);
    expect(simulated.body).toMatchObject({ disposition: 'parked', onRampId: null });
    expect(simulated.body.detail).toMatch(/below the on-ramp minimum/);
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
  });
});

describe('POST /treasury/onramp, then the wire', () => {
  it('is attributed to the open on-ramp and delivered: the balance grows by net, onramp.delivered reaches the audit trail', async () => {
    const before = await readBalance(org.organizationId);
    const opened = await announce(org.apiKey, '100.00');
    expect(opened.status).toBe(202);
    const accepted = strictly(deepStrict(OnRampAccepted), opened.body);
    expect(accepted.status).toBe('OPENING_COLLECTION');
    expect(accepted.instructions).toEqual({
      reference: depositReferenceOf(org.organizationId),
      accountName: expect.any(String),
      accountNumber: expect.any(String),
      bic: expect.any(String),
    });
    await stageReached(org.apiKey, accepted.onRampId, 'AWAITING_PAYMENT');

    const simulated = await wire(org.apiKey, '100.00');
    expect(simulated.body).toMatchObject({ disposition: 'attributed', onRampId: accepted.onRampId });

    const done = await settled(org.apiKey, accepted.onRampId);
    expect(done.state).toBe('DELIVERED');
    expect(stages(done as never)).toEqual(['OPENING_COLLECTION', 'AWAITING_PAYMENT', 'PAYMENT_RECEIVED', 'CONVERTING', 'DELIVERING', 'DELIVERED']);
    expect(done.gross).toEqual({ amount: '100000000', currency: 'USDC', scale: 6 });
    const after = await expectLedgerInvariant(org.organizationId);
    expect(after.available - before.available).toBe(BigInt(done.net.amount));

    const events = await auditTypes(org.organizationId, accepted.onRampId, 'onramp.delivered');
    const delivered = events.find((event) => event.type === 'onramp.delivered');
    expect(delivered, JSON.stringify(events)).toBeDefined();
    expect(delivered!.data).toEqual(done);
  });

  it('converts EUR at the FX rate at conversion, floored, with the FX provider named', async () => {
    const opened = await announce(org.apiKey, '80.00', 'EUR');
    expect(opened.status).toBe(202);
    expect(opened.body.instructions.iban).toMatch(/^IE/);
    await stageReached(org.apiKey, opened.body.onRampId, 'AWAITING_PAYMENT');
    expect((await wire(org.apiKey, '80.00', 'EUR')).body.disposition).toBe('attributed');
    const done = await settled(org.apiKey, opened.body.onRampId);
    expect(done.state).toBe('DELIVERED');
    // Euros leave the house account for the FX desk before they are converted; dollars are minted where they land.
    expect(stages(done as never)).toEqual(['OPENING_COLLECTION', 'AWAITING_PAYMENT', 'PAYMENT_RECEIVED', 'FORWARDING', 'CONVERTING', 'DELIVERING', 'DELIVERED']);
    expect(done.fxProvider).toBe('simulated-fx');
    const gross = BigInt(done.gross.amount);
    // 80 EUR at 0.9213 USDC/EUR ± 50 bps drift: about 86.8 USDC.
    expect(gross).toBeGreaterThan(85_000_000n);
    expect(gross).toBeLessThan(88_000_000n);
    expect(BigInt(done.fee.amount)).toBe((gross * BigInt(wireFeeBps)) / 10_000n);
    expect(BigInt(done.net.amount)).toBe(gross - BigInt(done.fee.amount));
  });

  it('answers the same key with the same body the same way, and never opens a second on-ramp', async () => {
    const idempotencyKey = key('same');
    const first = await announce(org.apiKey, '50', 'USD', idempotencyKey);
    const second = await call(service, 'POST', '/treasury/onramp', {
      apiKey: org.apiKey,
      body: { idempotencyKey, amount: { amount: '50.00', currency: 'USD' }, destinationAddress: '0xignored', unknownField: 'ignored' },
    });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.body.onRampId).toBe(first.body.onRampId);
    expect(second.body.instructions).toEqual(first.body.instructions);

    const reused = await announce(org.apiKey, '51.00', 'USD', idempotencyKey);
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe('idempotency_key_reused');
    const otherCurrency = await announce(org.apiKey, '50.00', 'EUR', idempotencyKey);
    expect(otherCurrency.body.error).toBe('idempotency_key_reused');

    const elsewhere = await announce(other.apiKey, '50.00', 'USD', idempotencyKey);
    expect(elsewhere.status).toBe(409);
    expect(elsewhere.body.error).toBe('idempotency_key_conflict');
    // The other organization learns nothing of it.
    expect((await call(service, 'GET', `/treasury/onramp/${idempotencyKey}`, { apiKey: other.apiKey })).status).toBe(404);

    // Paid, so it does not wait out its window.
    await stageReached(org.apiKey, idempotencyKey, 'AWAITING_PAYMENT');
    await wire(org.apiKey, '50.00');
    expect((await settled(org.apiKey, idempotencyKey)).state).toBe('DELIVERED');
    const list = await call(service, 'GET', '/treasury/onramps?origin=api&limit=500', { apiKey: org.apiKey });
    expect(list.body.onramps.filter((row: { onRampId: string }) => row.onRampId === idempotencyKey)).toHaveLength(1);
  });

  it('answers identical requests racing with one on-ramp', async () => {
    const idempotencyKey = key('race');
    const answers = await Promise.all(Array.from({ length: 5 }, () => announce(org.apiKey, '45.00', 'USD', idempotencyKey)));
    expect(answers.map((answer) => answer.status)).toEqual([202, 202, 202, 202, 202]);
    // The same deposit each time; its stage may have moved on between the answers.
    for (const answer of answers) expect({ ...answer.body, status: undefined }).toEqual({ ...answers[0]!.body, status: undefined });
    await stageReached(org.apiKey, idempotencyKey, 'AWAITING_PAYMENT');
    await wire(org.apiKey, '45.00');
    expect((await settled(org.apiKey, idempotencyKey)).state).toBe('DELIVERED');
    const list = await call(service, 'GET', '/treasury/onramps?origin=api&limit=500', { apiKey: org.apiKey });
    expect(list.body.onramps.filter((row: { onRampId: string }) => row.onRampId === idempotencyKey)).toHaveLength(1);
  });

  it('refuses a key held by a PIX deposit with idempotency_key_conflict', async () => {
    const idempotencyKey = key('pixkey');
    const pix = await call(service, 'POST', '/treasury/onramp/pix', { apiKey: org.apiKey, body: { idempotencyKey, amount: { amount: '100.00' } } });
    expect(pix.status).toBe(202);
    const clash = await announce(org.apiKey, '100.00', 'USD', idempotencyKey);
    expect(clash.status).toBe(409);
    expect(clash.body.error).toBe('idempotency_key_conflict');
    await call(service, 'POST', `/treasury/onramp/${idempotencyKey}/simulate-payment`, { apiKey: org.apiKey });
    expect((await settled(org.apiKey, idempotencyKey)).state).toBe('DELIVERED');
  });

  it('refuses bad bodies with 400 and stores nothing', async () => {
    const bodies: [unknown, string][] = [
      [{ idempotencyKey: key('low'), amount: { amount: '9.99', currency: 'USD' } }, 'validation'],
      [{ idempotencyKey: key('gbp'), amount: { amount: '100', currency: 'GBP' } }, 'validation'],
      [{ idempotencyKey: key('dec'), amount: { amount: '100.001', currency: 'USD' } }, 'validation'],
      [{ idempotencyKey: key('num'), amount: { amount: 100, currency: 'USD' } }, 'validation'],
      [{ idempotencyKey: key('huge'), amount: { amount: '9'.repeat(41), currency: 'USD' } }, 'validation'],
      [{ idempotencyKey: key('big'), amount: { amount: '9'.repeat(40), currency: 'USD' } }, 'validation'],
      [{ idempotencyKey: key('bil'), amount: { amount: '1000000000.01', currency: 'USD' } }, 'validation'],
      [{ idempotencyKey: 'short', amount: { amount: '100', currency: 'USD' } }, 'validation'],
      [{ idempotencyKey: `dep-${key('x')}`, amount: { amount: '100', currency: 'USD' } }, 'validation'],
      [{ idempotencyKey: key('tgt'), amount: { amount: '100', currency: 'USD' }, targetStablecoin: 'EURC' }, 'validation'],
      [{ idempotencyKey: key('nul'), amount: null }, 'validation'],
      [{ idempotencyKey: "key'; DROP--\u0000", amount: { amount: '100', currency: 'USD' } }, 'validation'],
      [[], 'validation'],
    ];
    for (const [body, error] of bodies) {
      const answer = await call(service, 'POST', '/treasury/onramp', { apiKey: org.apiKey, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error, JSON.stringify(body)).toBe(error);
      const id = (body as { idempotencyKey?: string }).idempotencyKey;
      if (id && /^[A-Za-z0-9_.:-]{8,200}$/.test(id)) {
        expect((await call(service, 'GET', `/treasury/onramp/${id}`, { apiKey: org.apiKey })).status).toBe(404);
      }
    }
    const notJson = await call(service, 'POST', '/treasury/onramp', { apiKey: org.apiKey, rawBody: '{"idempotencyKey":', headers: { 'content-type': 'application/json' } });
    expect(notJson.status).toBeGreaterThanOrEqual(400);
    expect(notJson.status).toBeLessThan(500);
  });

  it('answers 422 no_home_wallet and ambiguous_home_wallet', async () => {
    const lonely = await createTestOrganization(service, 'approved', 'No Home');
    await dynamo().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.wallet(lonely.organizationId, lonely.homeWalletId), UpdateExpression: 'SET home = :false', ExpressionAttributeValues: { ':false': false } }),
    );
    const none = await announce(lonely.apiKey, '100.00');
    expect(none.status).toBe(422);
    expect(none.body.error).toBe('no_home_wallet');

    const twice = await createTestOrganization(service, 'approved', 'Two Homes');
    const { Put } = walletItem({ organizationId: twice.organizationId, walletId: newWalletId(), home: true }) as { Put: { Item: Record<string, unknown> } };
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: Put.Item }));
    const ambiguous = await announce(twice.apiKey, '100.00');
    expect(ambiguous.status).toBe(422);
    expect(ambiguous.body.error).toBe('ambiguous_home_wallet');
  });
});

describe('outcome bands (the cents of the fiat amount)', () => {
  it('92: the payment is returned before conversion: REFUNDED, onramp.refunded, nothing credited', async () => {
    const before = await readBalance(org.organizationId);
    const opened = await announce(org.apiKey, '100.92');
    await stageReached(org.apiKey, opened.body.onRampId, 'AWAITING_PAYMENT');
    await wire(org.apiKey, '100.92');
    const done = await settled(org.apiKey, opened.body.onRampId);
    expect(done.state).toBe('REFUNDED');
    expect(stages(done as never)).toEqual(['OPENING_COLLECTION', 'AWAITING_PAYMENT', 'PAYMENT_RECEIVED', 'REFUNDED']);
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
    const events = await auditTypes(org.organizationId, opened.body.onRampId, 'onramp.refunded');
    expect(events.map((event) => event.type)).toContain('onramp.refunded');
  });

  it('94: the delivery is unanswered: IN_DOUBT, never sent again, nothing credited', async () => {
    const before = await readBalance(org.organizationId);
    const simulated = await wire(org.apiKey, '300.94');
    const done = await settled(org.apiKey, simulated.body.onRampId);
    expect(done.state).toBe('IN_DOUBT');
    expect(done.failure).toBe('delivery_unanswered');
    expect(stages(done as never)).toEqual(['PAYMENT_RECEIVED', 'CONVERTING', 'DELIVERING', 'IN_DOUBT']);
    expect(done).not.toHaveProperty('txHash');
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
  });

  it('97: the collection cannot be opened: an announced wire FAILS before any payment; an unannounced one stops before conversion', async () => {
    const opened = await announce(org.apiKey, '100.97');
    const failed = await settled(org.apiKey, opened.body.onRampId);
    expect(failed.state).toBe('FAILED');
    expect(failed.failure).toBe('collection_refused');
    expect(stages(failed as never)).toEqual(['OPENING_COLLECTION', 'FAILED']);

    const before = await readBalance(org.organizationId);
    const simulated = await wire(org.apiKey, '100.97');
    // The failed on-ramp is not open: the wire starts a deposit of its own.
    expect(simulated.body.disposition).toBe('pending');
    const stopped = await settled(org.apiKey, simulated.body.onRampId);
    expect(stopped.state).toBe('FAILED');
    expect(stopped.failure).toBe('conversion_refused');
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
  });
});

describe('a request that dies between its commit and starting the workflow', () => {
  it('is started by the onramp.started event (the safety net) and delivered', async () => {
    // Stored exactly as an incoming wire stores it, and then nothing: the process "died" before starting it.
    const depositId = `dep-01KSAFETYNET${Date.now().toString(36).toUpperCase()}`.slice(0, 30);
    const record = newOnRamp({
      organizationId: org.organizationId, id: depositId, status: 'PAYMENT_RECEIVED', origin: 'deposit', rail: 'wire', currency: 'USD',
      amount: '3300', received: '3300', targetStablecoin: 'USDC', instructions: wireInstructionsOf(org.organizationId, simulatedHouseAccounts[0]!),
      expiresAt: null, feeBps: wireFeeBps, now: new Date(), timeline: [{ status: 'PAYMENT_RECEIVED', detail: 'test' }],
    });
    expect(await createOperation(record, onRampCreateOptions(record))).toEqual({ created: record });
    const done = await settled(org.apiKey, depositId);
    expect(done.state).toBe('DELIVERED');
    expect(done.net.amount).toBe((33_000_000n - (33_000_000n * BigInt(wireFeeBps)) / 10_000n).toString());
  });
});

describe('expiry', () => {
  it('an on-ramp with no payment within its window ends EXPIRED, and a later wire starts a deposit of its own', async () => {
    process.env.ONRAMP_WIRE_EXPIRY_SECONDS = '1';
    let opened;
    try {
      opened = await announce(org.apiKey, '120.00');
    } finally {
      process.env.ONRAMP_WIRE_EXPIRY_SECONDS = '20';
    }
    const done = await settled(org.apiKey, opened.body.onRampId);
    expect(done.state).toBe('EXPIRED');
    expect(stages(done as never)).toEqual(['OPENING_COLLECTION', 'AWAITING_PAYMENT', 'EXPIRED']);
    const late = await wire(org.apiKey, '120.00');
    expect(late.body.disposition).toBe('pending');
    expect(late.body.onRampId).not.toBe(opened.body.onRampId);
    expect((await settled(org.apiKey, late.body.onRampId)).state).toBe('DELIVERED');
  });
});

describe('POST /treasury/onramps/simulate-wire input', () => {
  it('is strict, refuses unknown currencies with unknown_currency, and needs KYB', async () => {
    const cases: [unknown, number, string][] = [
      [{ amount: { amount: '100', currency: 'GBP' } }, 400, 'unknown_currency'],
      [{ amount: { amount: '100', currency: 'USD', extra: 1 } }, 400, 'validation'],
      [{ amount: { amount: '100', currency: 'USD' }, reference: 'REF' }, 400, 'validation'],
      [{ amount: { amount: '100.001', currency: 'USD' } }, 400, 'validation'],
      [{ amount: { amount: '0', currency: 'USD' } }, 400, 'validation'],
      [{ amount: { amount: '1e3', currency: 'USD' } }, 400, 'validation'],
      [{ amount: { amount: '100', currency: '' } }, 400, 'validation'],
      [{}, 400, 'validation'],
    ];
    for (const [body, status, error] of cases) {
      const answer = await call(service, 'POST', '/treasury/onramps/simulate-wire', { apiKey: org.apiKey, body });
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.error, JSON.stringify(body)).toBe(error);
    }
    const unverified = await createTestOrganization(service, 'pending', 'Unverified');
    const gated = await wire(unverified.apiKey, '100.00');
    expect(gated.status).toBe(403);
    expect(gated.body.error).toBe('kyb_required');
  });
});

describe('GET /treasury/onramps and GET /treasury/onramp/{id}', () => {
  it('pages newest first with cursors, filters by origin, and rows carry no state', async () => {
    const lister = await createTestOrganization(service, 'approved', 'Lister');
    await setRateLimit(lister.organizationId, 'write', { burst: 1000, perSecond: 1000 });
    await setRateLimit(lister.organizationId, 'read', { burst: 1000, perSecond: 1000 });
    const ids: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const opened = await announce(lister.apiKey, '40.00');
      ids.push(opened.body.onRampId);
      await stageReached(lister.apiKey, opened.body.onRampId, 'AWAITING_PAYMENT');
      await wire(lister.apiKey, '40.00');
    }
    const deposit = await wire(lister.apiKey, '41.00');
    for (const id of [...ids, deposit.body.onRampId]) await settled(lister.apiKey, id);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await call(service, 'GET', `/treasury/onramps?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { apiKey: lister.apiKey });
      expect(page.status).toBe(200);
      const list = strictly(deepStrict(OnRampList), page.body);
      expect(list.count).toBe(list.onramps.length);
      expect(list.hasMore).toBe(list.nextCursor !== null);
      for (const row of list.onramps) {
        expect(row).not.toHaveProperty('state');
        expect(row).not.toHaveProperty('stage');
        seen.push(row.onRampId);
      }
      cursor = list.nextCursor;
    } while (cursor);
    expect(seen).toEqual([deposit.body.onRampId, ...[...ids].reverse()]);

    const api = await call(service, 'GET', '/treasury/onramps?origin=api&limit=2', { apiKey: lister.apiKey });
    expect(api.body.onramps.map((row: { onRampId: string }) => row.onRampId)).toEqual([ids[2], ids[1]]);
    expect(api.body.onramps.every((row: { origin: string }) => row.origin === 'api')).toBe(true);
    const rest = await call(service, 'GET', `/treasury/onramps?origin=api&limit=2&cursor=${encodeURIComponent(api.body.nextCursor)}`, { apiKey: lister.apiKey });
    expect(rest.body.onramps.map((row: { onRampId: string }) => row.onRampId)).toEqual([ids[0]]);
    const deposits = await call(service, 'GET', '/treasury/onramps?origin=deposit', { apiKey: lister.apiKey });
    expect(deposits.body.onramps).toEqual([{ onRampId: deposit.body.onRampId, origin: 'deposit', amount: { amount: '4100', currency: 'USD', scale: 2 }, targetStablecoin: 'USDC', createdAt: expect.any(String) }]);
    expect((await call(service, 'GET', '/treasury/onramps?origin=pix', { apiKey: lister.apiKey })).body).toEqual({ onramps: [], count: 0, nextCursor: null, hasMore: false });

    // A cursor of one list is not a cursor of another, nor of another organization.
    const unfiltered = await call(service, 'GET', '/treasury/onramps?limit=1', { apiKey: lister.apiKey });
    const crossList = await call(service, 'GET', `/treasury/onramps?origin=api&cursor=${encodeURIComponent(unfiltered.body.nextCursor)}`, { apiKey: lister.apiKey });
    expect(crossList.status).toBe(400);
    expect(crossList.body.error).toBe('invalid_cursor');
    const crossOrg = await call(service, 'GET', `/treasury/onramps?cursor=${encodeURIComponent(unfiltered.body.nextCursor)}`, { apiKey: org.apiKey });
    expect(crossOrg.body.error).toBe('invalid_cursor');
    for (const query of ['limit=0', 'limit=501', 'limit=abc', 'origin=bank', 'cursor=', `cursor=${'x'.repeat(513)}`, 'cursor=forged']) {
      const answer = await call(service, 'GET', `/treasury/onramps?${query}`, { apiKey: lister.apiKey });
      expect(answer.status, query).toBe(400);
      expect(['validation', 'invalid_cursor'], query).toContain(answer.body.error);
    }
  });

  it("answers another organization's on-ramp, and one that does not exist, 404 not_found", async () => {
    const opened = await announce(org.apiKey, '60.00');
    for (const path of [`/treasury/onramp/${opened.body.onRampId}`, '/treasury/onramp/nope-nope-nope', `/treasury/onramp/${encodeURIComponent('é'.repeat(300))}`]) {
      const answer = await call(service, 'GET', path, { apiKey: other.apiKey });
      expect([400, 404], path).toContain(answer.status);
      if (answer.status === 404) expect(answer.body.error).toBe('not_found');
    }
    expect((await call(service, 'GET', `/treasury/onramp/${opened.body.onRampId}`, { apiKey: other.apiKey })).status).toBe(404);
    const simulated = await call(service, 'POST', `/treasury/onramp/${opened.body.onRampId}/simulate-payment`, { apiKey: other.apiKey });
    expect(simulated.status).toBe(404);
    // A wire is not paid by simulate-payment.
    const wrongTool = await call(service, 'POST', `/treasury/onramp/${opened.body.onRampId}/simulate-payment`, { apiKey: org.apiKey });
    expect(wrongTool.status).toBe(409);
    expect(wrongTool.body.error).toBe('not_simulatable');
    await stageReached(org.apiKey, opened.body.onRampId, 'AWAITING_PAYMENT');
    await wire(org.apiKey, '60.00');
    expect((await settled(org.apiKey, opened.body.onRampId)).state).toBe('DELIVERED');
  });
});
