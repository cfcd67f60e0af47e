import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { call, callResending, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { expectLedgerInvariant, expectLedgerInvariantForAll } from '../support/ledgerInvariant.ts';
import { creditDeposit, readBalance } from '#store/ledger.ts';
import { corridorCatalogue, findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { fraction } from '#domain/money.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { newWalletId, walletItem } from '#store/wallets.ts';
import { setRateLimit, setRateLimits } from '#store/organizations.ts';
import { createQuote, getTransaction as getTransactionRoute, listTransactions as listRoute } from '#contract/routes.ts';
import { until } from '../support/eventually.ts';

let service: LocalService;
let org: TestOrganization;
let seq = 0;

const mx = findCorridor('USDC', 'MXN', 'MX')!;
const mxBeneficiary = sampleBeneficiary(mx);
const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;

async function fund(organizationId: string, usdc: bigint) {
  await creditDeposit({ organizationId, depositId: key('dep'), amount: usdc * 1_000_000n, rail: 'wire', memo: 'test deposit' });
}

function payment(overrides: Record<string, unknown> = {}) {
  return {
    idempotencyKey: key('pay'),
    corridor: { to: 'MXN', destinationCountry: 'MX' },
    sendAmount: { amount: '100.00', currency: 'USDC' },
    recipientReference: 'invoice 42',
    beneficiary: mxBeneficiary,
    ...overrides,
  };
}

async function pay(apiKey: string, body: Record<string, unknown>) {
  return call(service, 'POST', '/transactions', { apiKey, body });
}

/** Polls GET /transactions/:id while `running` (as the contract tells integrators to). */
async function settled(apiKey: string, transactionId: string, timeoutMs = 20_000) {
  return untilSettled(service, apiKey, `/transactions/${encodeURIComponent(transactionId)}`, timeoutMs);
}

const states = (body: { timeline: { state: string }[] }) => body.timeline.map((entry) => entry.state);

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  await fund(org.organizationId, 100_000n);
  // These tests send many requests on purpose; the limiter has its own tests.
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
});

afterAll(async () => {
  // After every test of this file, for every organization: balance = sum of its journal entries.
  try {
    expect(await expectLedgerInvariantForAll()).toBeGreaterThan(0);
  } finally {
    await service?.stop();
  }
});

describe('capabilities', () => {
  it('lists every corridor of the catalogue and payments as simulated', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    expect(body.corridors).toHaveLength(corridorCatalogue.length);
    expect(body.corridors).toContainEqual({ from: 'USDC', to: 'VND', destinationCountry: 'VN', ownedRail: expect.any(Boolean), instant: expect.any(Boolean) });
    const statuses = Object.fromEntries(body.features.map((f: { feature: string; status: string }) => [f.feature, f.status]));
    expect(statuses.payments).toBe('simulated');
    expect(statuses.quotes).toBe('simulated');
  });
});

describe('POST /quotes', () => {
  it('prices exactly: receive = floor((send − fee − networkFee) × rate) in whole destination units, locked about a minute', async () => {
    const before = Date.now();
    const { status, body } = await call(service, 'POST', '/quotes', {
      apiKey: org.apiKey,
      body: { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '250.5', currency: 'USDC' }, extra: 'ignored' },
    });
    expect(status).toBe(200);
    expect(createQuote.responses[200]!.schema!.safeParse(body).success).toBe(true);
    expect(body.quoteId).toMatch(/^q_[0-9a-f-]{36}$/);
    expect(body.sendAmount).toEqual({ amount: '250500000', currency: 'USDC', scale: 6 });
    expect(body.receiveAmount.currency).toBe('MXN');
    expect(body.receiveAmount.scale).toBe(2);
    const net = 250_500_000n - BigInt(body.fee.amount) - BigInt(body.networkFee?.amount ?? '0');
    const rate = fraction(BigInt(body.rate.numerator), BigInt(body.rate.denominator));
    // Floored to whole pesos, the units the rate is quoted in, and written at scale 2: 4,599.86 is 459900.
    const wholePesos = (net * rate.numerator) / (rate.denominator * 1_000_000n);
    expect(BigInt(body.receiveAmount.amount)).toBe(wholePesos * 100n);
    const expires = Date.parse(body.expiresAt);
    expect(expires).toBeGreaterThan(before);
    expect(expires).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(['orchestrator', 'owned']).toContain(body.routeKind);
    if (body.routeKind === 'owned') expect(body.margin.bps).toBeGreaterThan(0);
  });

  it('reports a networkFee when the rail is funded on another network', async () => {
    const crossing = corridorCatalogue.find((c) => c.routes.every((r) => !r.networks.includes('base')));
    expect(crossing, 'the catalogue has a corridor whose rail is off the home network').toBeDefined();
    const { status, body } = await call(service, 'POST', '/quotes', {
      apiKey: org.apiKey,
      body: { corridor: { to: crossing!.to, destinationCountry: crossing!.destinationCountry }, sendAmount: { amount: '500', currency: 'USDC' } },
    });
    expect(status).toBe(200);
    expect(BigInt(body.networkFee.amount)).toBeGreaterThan(0n);
    expect(body.networkFee.currency).toBe('USDC');
  });

  it('refuses extra decimals, other currencies, unknown corridors and another wallet', async () => {
    const base = { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '1.0000001', currency: 'USDC' } };
    let answer = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: base });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('validation');
    expect(answer.body.issues[0].path).toEqual(['sendAmount', 'amount']);

    answer = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: { ...base, sendAmount: { amount: '10', currency: 'EURC' } } });
    expect(answer.status).toBe(400);
    answer = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: { ...base, sendAmount: { amount: '10', currency: 'USDC' }, corridor: { to: 'JPY', destinationCountry: 'JP' } } });
    expect(answer.status).toBe(400);
    expect(answer.body.issues[0].path).toEqual(['corridor']);
    answer = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: { ...base, sendAmount: { amount: '10', currency: 'USDC' }, integratorWalletId: 'wal_someone_else' } });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('not_home_wallet');
    answer = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: { ...base, sendAmount: { amount: '0.000001', currency: 'USDC' } } });
    expect(answer.status).toBe(400);
  });
});

describe('a payment, end to end', () => {
  it('with a quote: 202, then INITIATED … RECONCILED in order, paid exactly what was quoted, fee realized', async () => {
    const idempotencyKey = key('happy');
    const quote = await call(service, 'POST', '/quotes', {
      apiKey: org.apiKey,
      body: { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '100.00', currency: 'USDC' }, idempotencyKey },
    });
    expect(quote.status).toBe(200);
    const before = await readBalance(org.organizationId);
    const accepted = await pay(org.apiKey, payment({ idempotencyKey, quoteId: quote.body.quoteId }));
    expect(accepted.status).toBe(202);
    expect(accepted.body).toEqual({ transactionId: idempotencyKey, status: 'FUNDED' });
    const afterHold = await readBalance(org.organizationId);
    expect(before.available - afterHold.available).toBe(100_000_000n);

    const done = await settled(org.apiKey, idempotencyKey);
    expect(getTransactionRoute.responses[200]!.schema!.safeParse(done).success).toBe(true);
    expect(done.state).toBe('RECONCILED');
    expect(states(done)).toEqual(['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'SETTLING', 'PAID_OUT', 'RECONCILED']);
    expect(done.timeline[1].detail).toContain(quote.body.quoteId);
    expect(done.receiveAmount).toEqual(quote.body.receiveAmount);
    expect(done.payoutDelta).toBeUndefined();
    expect(done.provider).toBe(quote.body.provider);

    const after = await readBalance(org.organizationId);
    expect(before.available - after.available).toBe(100_000_000n);
    expect(after.held).toBe(before.held);
    await expectLedgerInvariant(org.organizationId);
  });

  it('without a quote it is priced at acceptance', async () => {
    const accepted = await pay(org.apiKey, payment());
    expect(accepted.status).toBe(202);
    const done = await settled(org.apiKey, accepted.body.transactionId);
    expect(done.state).toBe('RECONCILED');
    expect(done.timeline[1]).toEqual({ state: 'QUOTED', detail: 'priced at acceptance' });
  });

  it('is stored small (timeline entries as strings, no nulls), and a payment stored before in maps and nulls answers the same', async () => {
    const accepted = await pay(org.apiKey, payment());
    const transactionId = accepted.body.transactionId as string;
    const done = await settled(org.apiKey, transactionId);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.transaction(org.organizationId, transactionId), ConsistentRead: true }));
    const stored = Item!;
    expect((stored.timeline as unknown[]).every((entry) => typeof entry === 'string')).toBe(true);
    expect(stored).not.toHaveProperty('originator');
    expect(stored).not.toHaveProperty('quoteId');
    expect(stored).not.toHaveProperty('organizationId');

    // The shape before decision 138, under another id: what GET answers is the same.
    const olderId = `${transactionId}-older`;
    const timeline = (stored.timeline as string[]).map((entry) => {
      const [state, at, ...detail] = entry.split('|');
      return { state, at: new Date(parseInt(at!, 36)).toISOString(), ...(detail.length ? { detail: detail.join('|') } : {}) };
    });
    const { gsi1pk: _g1, gsi1sk: _g2, ...rest } = stored;
    await dynamo().send(new PutCommand({
      TableName: tableName(),
      Item: { ...rest, ...keys.transaction(org.organizationId, olderId), organizationId: org.organizationId, transactionId: olderId, timeline, networkFee: stored.networkFee ?? null, margin: stored.margin ?? null, originator: null, quoteId: null },
    }));
    const older = (await call(service, 'GET', `/transactions/${olderId}`, { apiKey: org.apiKey })).body;
    expect({ ...older, transactionId }).toEqual(done);
    // A step written after the move appends a string to the older list of maps: both read.
    await dynamo().send(new UpdateCommand({
      TableName: tableName(), Key: keys.transaction(org.organizationId, olderId),
      UpdateExpression: 'SET timeline = list_append(timeline, :entry)', ExpressionAttributeValues: { ':entry': ['IN_DOUBT|1|with | a bar'] },
    }));
    const mixed = (await call(service, 'GET', `/transactions/${olderId}`, { apiKey: org.apiKey })).body;
    expect(mixed.timeline).toEqual([...done.timeline, { state: 'IN_DOUBT', detail: 'with | a bar' }]);
  });

  it('the same request again answers the same payment and moves money once; another body with the key is refused', async () => {
    const body = payment();
    const first = await pay(org.apiKey, body);
    const before = await readBalance(org.organizationId);
    const again = await pay(org.apiKey, { ...body, unknownField: 'ignored' });
    expect(again.status).toBe(202);
    expect(again.body.transactionId).toBe(first.body.transactionId);
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
    const other = await pay(org.apiKey, { ...body, sendAmount: { amount: '101.00', currency: 'USDC' } });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_reused');
    await settled(org.apiKey, first.body.transactionId);
  });

  it('writes paid_out and reconciled events that reach the audit trail', async () => {
    const accepted = await pay(org.apiKey, payment());
    await settled(org.apiKey, accepted.body.transactionId);
    const types = await until(
      async () => {
        const { Items } = await dynamo().send(
          new QueryCommand({
            TableName: tableName(),
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :audit)',
            ExpressionAttributeValues: { ':pk': `ORG#${org.organizationId}`, ':audit': 'AUDIT#' },
          }),
        );
        return (Items ?? []).filter((item) => (item.data as { transactionId?: string })?.transactionId === accepted.body.transactionId).map((item) => item.type as string);
      },
      (seen) => seen.includes('transaction.reconciled'),
      { what: 'transaction.reconciled in the audit trail', timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(types).toEqual(expect.arrayContaining(['transaction.funded', 'transaction.paid_out', 'transaction.reconciled']));
  });
});

describe('outcome bands force every path', () => {
  const cases: [string, string, string[], string?][] = [
    ['100.91', 'FAILED', ['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'FAILED'], 'payout_rejected'],
    ['100.92', 'REFUNDED', ['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'SETTLING', 'REFUNDING', 'REFUNDED']],
    ['100.93', 'RECONCILED', ['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'PENDING_RETRY', 'ROUTING', 'PENDING_RETRY', 'ROUTING', 'SETTLING', 'PAID_OUT', 'RECONCILED']],
    ['100.94', 'IN_DOUBT', ['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'IN_DOUBT']],
    ['100.95', 'NEEDS_ATTENTION', ['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'SETTLING', 'NEEDS_ATTENTION']],
    ['100.97', 'FAILED', ['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'SETTLING', 'FAILED'], 'payout_failed'],
  ];
  for (const [amount, final, path, failure] of cases) {
    it(`${amount} USDC ends ${final}, with the right money`, async () => {
      const before = await readBalance(org.organizationId);
      const accepted = await pay(org.apiKey, payment({ sendAmount: { amount, currency: 'USDC' } }));
      expect(accepted.status).toBe(202);
      const done = await settled(org.apiKey, accepted.body.transactionId);
      expect(done.state).toBe(final);
      expect(states(done)).toEqual(path);
      expect(done.running).toBe(false);
      if (failure) expect(done.failure).toBe(failure);
      const after = await readBalance(org.organizationId);
      const sent = BigInt(amount.replace('.', '')) * 10_000n;
      if (final === 'RECONCILED') expect(before.available - after.available).toBe(sent);
      if (final === 'FAILED' || final === 'REFUNDED') expect(after.available).toBe(before.available);
      // Needs a person: the money stays held, neither spent nor returned.
      if (final === 'IN_DOUBT' || final === 'NEEDS_ATTENTION') expect(after.held - before.held).toBe(sent);
      await expectLedgerInvariant(org.organizationId);
    });
  }

  it('100.96 USDC pays a different amount and shows payoutDelta', async () => {
    const accepted = await pay(org.apiKey, payment({ sendAmount: { amount: '100.96', currency: 'USDC' } }));
    const done = await settled(org.apiKey, accepted.body.transactionId);
    expect(done.state).toBe('RECONCILED');
    expect(done.payoutDelta.difference).toEqual({ amount: '-100', currency: 'MXN', scale: 2 });
    expect(BigInt(done.payoutDelta.paid.amount) - BigInt(done.payoutDelta.quoted.amount)).toBe(-100n);
    expect(done.receiveAmount).toEqual(done.payoutDelta.paid);
  });
});

describe('POST /transactions refuses before any value moves', () => {
  it('a missing beneficiary field is 400 beneficiary_incomplete naming it; a bad CLABE is 400 validation', async () => {
    const { name } = mxBeneficiary;
    const before = await readBalance(org.organizationId);
    let answer = await pay(org.apiKey, payment({ beneficiary: undefined }));
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: 'beneficiary_incomplete', message: expect.any(String), missing: ['beneficiary'] });
    const gb = findCorridor('USDC', 'GBP', 'GB')!;
    const { bankCode: _dropped, ...noSortCode } = sampleBeneficiary(gb);
    answer = await pay(org.apiKey, payment({ corridor: { to: 'GBP', destinationCountry: 'GB' }, beneficiary: noSortCode }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('beneficiary_incomplete');
    expect(answer.body.missing).toContain('bankCode');
    answer = await pay(org.apiKey, payment({ beneficiary: { name, account: '002010077777777770' } }));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('validation');
    expect(JSON.stringify(answer.body)).not.toContain('002010077777777770');
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
  });

  it('the home wallet is read beside the key check, but its refusal waits its turn: a replay still answers, a bad beneficiary is named first', async () => {
    const other = await createTestOrganization(service, 'approved', 'Two Homes Later');
    await fund(other.organizationId, 1_000n);
    const first = payment();
    const accepted = await pay(other.apiKey, first);
    expect(accepted.status).toBe(202);
    await settled(other.apiKey, first.idempotencyKey);
    // A data fault after the payment: two wallets marked home. Nothing new may be funded from a guess.
    const { Put } = walletItem({ organizationId: other.organizationId, walletId: newWalletId(), home: true }) as { Put: { Item: Record<string, unknown> } };
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: Put.Item }));
    const before = await readBalance(other.organizationId);

    const replay = await pay(other.apiKey, first);
    expect(replay.status).toBe(202);
    expect(replay.body.transactionId).toBe(first.idempotencyKey);
    const incomplete = await pay(other.apiKey, payment({ beneficiary: undefined }));
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.error).toBe('beneficiary_incomplete');
    const fresh = await pay(other.apiKey, payment());
    expect(fresh.status).toBe(422);
    expect(fresh.body.error).toBe('ambiguous_home_wallet');
    expect(await readBalance(other.organizationId)).toEqual(before);
  });

  it('a screening hit is 403 compliance_hold, the payment never starts, the record keeps the account masked, and again gives the same', async () => {
    const body = payment({ beneficiary: { ...mxBeneficiary, name: 'Ivan Dragomir-Petrov' } });
    const before = await readBalance(org.organizationId);
    const held = await pay(org.apiKey, body);
    expect(held.status).toBe(403);
    expect(held.body).toEqual({ error: 'compliance_hold', message: expect.any(String), transactionId: body.idempotencyKey });
    expect(JSON.stringify(held.body).toLowerCase()).not.toContain('dragomir');
    expect((await pay(org.apiKey, body)).body).toEqual(held.body);
    // The held key is spent: another body under it is refused as a reused key, not a new payment.
    const other = await pay(org.apiKey, { ...body, beneficiary: mxBeneficiary });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_reused');
    expect((await call(service, 'GET', `/transactions/${body.idempotencyKey}`, { apiKey: org.apiKey })).status).toBe(404);
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.complianceRecord(org.organizationId, body.idempotencyKey) }));
    expect(Item!.beneficiaryAccount).not.toBe(mxBeneficiary.account);
    expect(Item!.beneficiaryAccount).toMatch(/^\*+\d{4}$/);
    expect(JSON.stringify(Item)).not.toContain(mxBeneficiary.account);
    const byReference = await pay(org.apiKey, payment({ recipientReference: 'for Northwind Shell Company' }));
    expect(byReference.status).toBe(403);
  });

  it('quotes: unknown, mismatched, bound to another key, single use, expired', async () => {
    const quoteBody = { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '20', currency: 'USDC' } };
    let answer = await pay(org.apiKey, payment({ quoteId: 'q_00000000-0000-4000-8000-000000000000' }));
    expect(answer.body.error).toBe('quote_not_found');
    const quote = (await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: quoteBody })).body;
    answer = await pay(org.apiKey, payment({ quoteId: quote.quoteId, sendAmount: { amount: '21', currency: 'USDC' } }));
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('quote_mismatch');
    const first = await pay(org.apiKey, payment({ quoteId: quote.quoteId, sendAmount: { amount: '20', currency: 'USDC' } }));
    expect(first.status).toBe(202);
    await settled(org.apiKey, first.body.transactionId);
    answer = await pay(org.apiKey, payment({ quoteId: quote.quoteId, sendAmount: { amount: '20', currency: 'USDC' } }));
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('quote_expired');
    const bound = (await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: { ...quoteBody, idempotencyKey: key('bound') } })).body;
    answer = await pay(org.apiKey, payment({ quoteId: bound.quoteId, sendAmount: { amount: '20', currency: 'USDC' } }));
    expect(answer.body.error).toBe('quote_mismatch');
    // Expiry: age the stored quote rather than wait a minute.
    const stale = (await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: quoteBody })).body;
    const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
    await dynamo().send(new UpdateCommand({
      TableName: tableName(), Key: keys.quote(org.organizationId, stale.quoteId),
      UpdateExpression: 'SET expiresAt = :past', ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
    }));
    const before = await readBalance(org.organizationId);
    answer = await pay(org.apiKey, payment({ quoteId: stale.quoteId, sendAmount: { amount: '20', currency: 'USDC' } }));
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('quote_expired');
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
  });

  it('insufficient funds is 422 with what the home wallet holds', async () => {
    const poor = await createTestOrganization(service);
    await fund(poor.organizationId, 5n);
    const answer = await pay(poor.apiKey, payment({ sendAmount: { amount: '5.000001', currency: 'USDC' } }));
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: 'insufficient_funds', message: expect.any(String), available: { amount: '5000000', currency: 'USDC', scale: 6 } });
    expect((await call(service, 'GET', '/transactions', { apiKey: poor.apiKey })).body.count).toBe(0);
  });

  it('hostile and mistyped fields are 400 with the contract body, never 500', async () => {
    const bad: Record<string, unknown>[] = [
      { idempotencyKey: 42 }, { idempotencyKey: 'short' }, { idempotencyKey: 'x'.repeat(201) }, { idempotencyKey: 'bad key with spaces' },
      { corridor: 'MXN' }, { corridor: { to: '', destinationCountry: 'MX' } }, { corridor: { to: 'MXN', destinationCountry: 'MEX' } },
      { sendAmount: { amount: 100, currency: 'USDC' } }, { sendAmount: { amount: '-1', currency: 'USDC' } }, { sendAmount: { amount: '1e6', currency: 'USDC' } },
      { sendAmount: { amount: '9'.repeat(100), currency: 'USDC' } }, { sendAmount: { amount: '0', currency: 'USDC' } },
      { recipientReference: '' }, { recipientReference: 'x'.repeat(10_000) }, { recipientReference: ['a'] },
      { beneficiary: { name: 'A', account: 'x'.repeat(141) } }, { beneficiary: { ...mxBeneficiary, phone: { callingCode: 'abc', number: '1' } } },
      { originator: { dateOfBirth: '1990/01/01' } }, { originator: 'me' }, { payoutMode: 'warp' }, { quoteId: '' }, { quoteId: 'q'.repeat(201) },
      { integratorWalletId: '' }, { beneficiary: { ...mxBeneficiary, country: 'MEX' } }, { sendAmount: null }, { corridor: { to: { $ne: 1 }, destinationCountry: 'MX' } },
    ];
    const before = await readBalance(org.organizationId);
    for (const fields of bad) {
      const answer = await pay(org.apiKey, payment(fields));
      expect(answer.status, JSON.stringify(fields)).toBe(400);
      expect(['validation', 'beneficiary_incomplete']).toContain(answer.body.error);
      if (answer.body.error === 'validation') expect(answer.body.issues.length).toBeGreaterThan(0);
    }
    const quoteBad = [{ corridor: null }, { sendAmount: { amount: '1.5.5', currency: 'USDC' } }, { idempotencyKey: '$$$$$$$$$' }, { corridor: { to: 'MXN' } }];
    for (const fields of quoteBad) {
      const answer = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '1', currency: 'USDC' }, ...fields } });
      expect(answer.status, JSON.stringify(fields)).toBe(400);
    }
    expect((await readBalance(org.organizationId)).available).toBe(before.available);
  });
});

describe('money under concurrency', () => {
  /** As the contract tells a client: a 503 (a request past the local deadline while other test files load the machine) may have taken effect, and is resent with the same key. */
  const payAsAClientWould = (apiKey: string, body: ReturnType<typeof payment>) => callResending(service, 'POST', '/transactions', { apiKey, body }, { attempts: 5 });

  // What these assert is correctness under contention, not speed: 7 s alone, past 30 s in a CI run
  // where the other worker loaded the machine (each payment resent after a 503 redoes its work).
  const concurrencyTimeoutMs = 120_000;

  it('50 concurrent identical POST /transactions: one payment, one debit', async () => {
    const body = payment();
    const before = await readBalance(org.organizationId);
    const answers = await Promise.all(Array.from({ length: 50 }, () => payAsAClientWould(org.apiKey, body)));
    for (const answer of answers) {
      expect(answer.status).toBe(202);
      expect(answer.body.transactionId).toBe(body.idempotencyKey);
    }
    const after = await readBalance(org.organizationId);
    expect(before.available - after.available).toBe(100_000_000n);
    await settled(org.apiKey, body.idempotencyKey);
    expect(before.available - (await readBalance(org.organizationId)).available).toBe(100_000_000n);
    await expectLedgerInvariant(org.organizationId);
  }, concurrencyTimeoutMs);

  it('50 concurrent payments whose sum exceeds the balance: exactly those that fit are accepted', async () => {
    const small = await createTestOrganization(service);
    await fund(small.organizationId, 1_000n);
    await setRateLimit(small.organizationId, 'initiate', { burst: 1_000, perSecond: 1_000 });
    const amounts = Array.from({ length: 50 }, (_, i) => 30n + BigInt(i % 7)); // 50 × ~33 USDC ≈ 1,650 USDC > 1,000
    const answers = await Promise.all(amounts.map((usdc) => payAsAClientWould(small.apiKey, payment({ sendAmount: { amount: usdc.toString(), currency: 'USDC' } }))));
    let acceptedSum = 0n;
    for (const [index, answer] of answers.entries()) {
      if (answer.status === 202) acceptedSum += amounts[index]! * 1_000_000n;
      else {
        expect(answer.status).toBe(422);
        expect(answer.body.error).toBe('insufficient_funds');
        expect(BigInt(answer.body.available.amount)).toBeGreaterThanOrEqual(0n);
      }
    }
    const balance = await readBalance(small.organizationId);
    expect(balance.available).toBeGreaterThanOrEqual(0n);
    expect(balance.available + acceptedSum).toBe(1_000_000_000n);
    // Nothing that would have fitted was refused: the smallest refused amount exceeds what is left.
    const refused = answers.flatMap((answer, index) => (answer.status === 422 ? [amounts[index]! * 1_000_000n] : []));
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((amount) => amount > balance.available)).toBe(true);
    // The invariant is read once nothing moves any more (the balance and the journal are two reads).
    const acceptedIds = answers.flatMap((answer) => (answer.status === 202 ? [answer.body.transactionId as string] : []));
    for (const id of acceptedIds) await settled(small.apiKey, id);
    await expectLedgerInvariant(small.organizationId);
  }, concurrencyTimeoutMs);
});

describe('GET /transactions', () => {
  it('pages newest first with cursors that survive concurrent writes; a forged cursor is 400', async () => {
    const lister = await createTestOrganization(service);
    await fund(lister.organizationId, 1_000n);
    await setRateLimit(lister.organizationId, 'initiate', { burst: 1_000, perSecond: 1_000 });
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      const body = payment({ sendAmount: { amount: '1', currency: 'USDC' } });
      expect((await pay(lister.apiKey, body)).status).toBe(202);
      ids.push(body.idempotencyKey);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const { status, body } = await call(service, 'GET', `/transactions${query}`, { apiKey: lister.apiKey });
      expect(status).toBe(200);
      expect(listRoute.responses[200]!.schema!.safeParse(body).success).toBe(true);
      expect(body.count).toBe(body.transactions.length);
      expect(body.hasMore).toBe(body.nextCursor !== null);
      seen.push(...body.transactions.map((row: { transactionId: string }) => row.transactionId));
      if (pages === 0) {
        // A write while paging lands above the first page and is neither repeated nor skipped into later pages.
        expect((await pay(lister.apiKey, payment({ sendAmount: { amount: '1', currency: 'USDC' } }))).status).toBe(202);
      }
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const row = (await call(service, 'GET', '/transactions?limit=1', { apiKey: lister.apiKey })).body.transactions[0];
    expect(row).toEqual({ transactionId: expect.any(String), corridor: { from: 'USDC', to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '1000000', currency: 'USDC', scale: 6 }, recipientReference: 'invoice 42', createdAt: expect.any(String) });

    const forged = await call(service, 'GET', '/transactions?cursor=eyJ2IjoxfQ', { apiKey: lister.apiKey });
    expect(forged.status).toBe(400);
    expect(forged.body.error).toBe('invalid_cursor');
    // Another organization's cursor names another list.
    const page = (await call(service, 'GET', '/transactions?limit=1', { apiKey: lister.apiKey })).body;
    const foreign = await call(service, 'GET', `/transactions?cursor=${encodeURIComponent(page.nextCursor)}`, { apiKey: org.apiKey });
    expect(foreign.body.error).toBe('invalid_cursor');
    expect((await call(service, 'GET', '/transactions?limit=0', { apiKey: lister.apiKey })).status).toBe(400);
    expect((await call(service, 'GET', '/transactions?limit=501', { apiKey: lister.apiKey })).status).toBe(400);
  });

  it("another organization's payment is 404, like one that does not exist", async () => {
    const accepted = await pay(org.apiKey, payment());
    const other = await createTestOrganization(service);
    const foreign = await call(service, 'GET', `/transactions/${accepted.body.transactionId}`, { apiKey: other.apiKey });
    const absent = await call(service, 'GET', '/transactions/no-such-payment', { apiKey: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ ...absent.body });
  });
});

describe('workflow steps delivered more than once', () => {
  it('20 concurrent deliveries of each step move the payment and its money once', async () => {
    const { handler: paymentStep } = await import('../../functions/tasks/payment/paymentStep.ts');
    const { listJournalEntries } = await import('#store/ledger.ts');
    process.env.PAYOUT_SETTLE_SECONDS = '2';
    let transactionId: string;
    try {
      const accepted = await pay(org.apiKey, payment());
      transactionId = accepted.body.transactionId;
      const ref = { organizationId: org.organizationId, transactionId };
      // Deliver the steps ourselves, many times at once, while the workflow runs them too.
      const storm = async (step: string) => Promise.all(Array.from({ length: 20 }, () => paymentStep({ step, ...ref })));
      await storm('submit');
      await storm('poll');
      // Until the rail has paid (the simulated payout settles after PAYOUT_SETTLE_SECONDS), then storm every step at once.
      const { payoutProvider } = await import('#providers/payout.ts');
      await until(() => payoutProvider().status(`${org.organizationId}:${transactionId}`), (report) => report.status !== 'processing', { what: 'the payout paid by the rail', timeoutMs: 10_000 });
      await Promise.all([storm('poll'), storm('reconcile'), storm('submit'), storm('refund')]);
      await storm('reconcile');
    } finally {
      delete process.env.PAYOUT_SETTLE_SECONDS;
    }
    const done = await settled(org.apiKey, transactionId);
    expect(states(done)).toEqual(['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'SETTLING', 'PAID_OUT', 'RECONCILED']);
    const entries = (await listJournalEntries(org.organizationId)).filter((entry) => entry.operation.id === transactionId);
    expect(entries.map((entry) => entry.entryId).sort()).toEqual([`payment:${transactionId}:capture`, `payment:${transactionId}:hold`]);
    const { Items } = await dynamo().send(new QueryCommand({
      TableName: tableName(), KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': `SIMPAYOUT#${org.organizationId}:${transactionId}` },
    }));
    expect((Items ?? []).filter((item) => item.sk === 'SIMPAYOUT')).toHaveLength(1);
  });
});
