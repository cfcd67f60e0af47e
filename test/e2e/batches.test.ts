import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, callResending, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { expectLedgerInvariant, expectLedgerInvariantForAll } from '../support/ledgerInvariant.ts';
import { creditDeposit, listJournalEntries, readBalance } from '#store/ledger.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { setRateLimit, setRateLimits } from '#store/organizations.ts';
import { screeningList } from '#domain/screening.ts';
import { until } from '../support/eventually.ts';
import { operationHistory } from '../../lib/ops/operationHistory.ts';
import { followItems, startItems } from '#operations/batch/progress.ts';
import { observeConsumedCapacity } from '#store/client.ts';
import { claimBatchIntake } from '#store/batches.ts';

let service: LocalService;
let org: TestOrganization;
let seq = 0;

const mx = findCorridor('USDC', 'MXN', 'MX')!;
const beneficiary = sampleBeneficiary(mx);
const provider = mx.routes[0]!.provider;
const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;

async function fund(organizationId: string, usdc: bigint) {
  await creditDeposit({ organizationId, depositId: key('dep'), amount: usdc * 1_000_000n, rail: 'wire', memo: 'test deposit' });
}

function item(itemRef: string, amount: string, overrides: Record<string, unknown> = {}) {
  return { itemRef, sendAmount: { amount, currency: 'USDC' }, recipientReference: `payroll ${itemRef}`, beneficiary, ...overrides };
}

function batch(items: Record<string, unknown>[], overrides: Record<string, unknown> = {}) {
  return { batchId: key('batch'), corridor: { to: 'MXN', destinationCountry: 'MX' }, provider, items, ...overrides };
}

/** POST /batches, a 503 sent again with the same batchId as an integrator would (a keyed request: safe). */
async function send(apiKey: string, body: Record<string, unknown>) {
  return callResending(service, 'POST', '/batches', { apiKey, body });
}

/** GET /batches/{id} until every item has ended (as an integrator polls). */
async function completed(apiKey: string, batchId: string, timeoutMs = 30_000) {
  return until(
    async () => (await call(service, 'GET', `/batches/${encodeURIComponent(batchId)}?limit=500`, { apiKey })).body,
    (body) => body.state === 'COMPLETED',
    { what: `batch ${batchId} to complete`, timeoutMs },
  );
}

/** The batch's ledger story: its hold, and what each item released or captured. */
async function batchMoney(organizationId: string, batchId: string) {
  const entries = await listJournalEntries(organizationId);
  const heldBy = (entryId: string) => entries.find((entry) => entry.entryId === entryId)?.legs.find((leg) => leg.account === 'held')?.amount ?? 0n;
  const hold = heldBy(`batch:${batchId}:hold`);
  const prefix = `payment:${batchId}:`;
  let released = 0n;
  let captured = 0n;
  for (const entry of entries) {
    const held = entry.legs.find((leg) => leg.account === 'held')?.amount ?? 0n;
    if (entry.entryId.startsWith(`batch:${batchId}:item:`) || (entry.entryId.startsWith(prefix) && entry.entryId.endsWith(':release'))) released += -held;
    if (entry.entryId.startsWith(prefix) && entry.entryId.endsWith(':capture')) captured += -held;
  }
  return { hold, released, captured, holds: entries.filter((entry) => entry.entryId === `batch:${batchId}:hold`).length };
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  await fund(org.organizationId, 1_000_000n);
  // These tests send many requests on purpose; the limiter's own test lowers it again.
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
});

afterAll(async () => {
  try {
    expect(await expectLedgerInvariantForAll()).toBeGreaterThan(0);
  } finally {
    await service?.stop();
  }
});

describe('POST /batches', () => {
  it('funds three items in one transfer, pays each as its own payment, and fails the one its band fails, releasing its share', async () => {
    const before = await readBalance(org.organizationId);
    const body = batch([item('alice', '100.00'), item('bob', '200.00'), item('carol', '50.91')]);
    const { status, body: accepted } = await send(org.apiKey, body);
    expect(status).toBe(202);
    expect(accepted).toMatchObject({ batchId: body.batchId, state: 'ACCEPTED', itemCount: 3 });
    expect(accepted.note).toContain('350.910000 USDC');
    // One funding transfer, at once: the whole total held.
    const funded = await readBalance(org.organizationId);
    expect(before.available - funded.available).toBe(350_910_000n);

    const detail = await completed(org.apiKey, body.batchId);
    expect(detail).toMatchObject({
      batchId: body.batchId, state: 'COMPLETED', provider, chain: expect.any(String), itemCount: 3,
      corridor: { from: 'USDC', to: 'MXN', destinationCountry: 'MX' }, totalSendAmount: { amount: '350910000', currency: 'USDC', scale: 6 },
      items: { RECONCILED: 2, FAILED: 1 },
    });
    expect(detail.rejectedReason).toBeUndefined();
    expect(detail.page.items.map((row: { itemRef: string }) => row.itemRef)).toEqual(['alice', 'bob', 'carol']);
    expect(detail.page.items[2]).toMatchObject({
      itemRef: 'carol', transactionId: `${body.batchId}:carol`, state: 'FAILED', failureReason: 'payout_rejected',
      sendAmount: { amount: '50910000', currency: 'USDC', scale: 6 }, recipientReference: 'payroll carol',
    });
    expect(detail.page.items[0].failureReason).toBeUndefined();
    expect(detail.page).toMatchObject({ nextCursor: null, hasMore: false });

    // Each item is a payment of its own, readable and listed like any other.
    const alice = await call(service, 'GET', `/transactions/${encodeURIComponent(`${body.batchId}:alice`)}`, { apiKey: org.apiKey });
    expect(alice.status).toBe(200);
    expect(alice.body).toMatchObject({ state: 'RECONCILED', running: false });
    const listed = await call(service, 'GET', '/transactions?limit=20', { apiKey: org.apiKey });
    expect(listed.body.transactions.map((row: { transactionId: string }) => row.transactionId)).toEqual(expect.arrayContaining([`${body.batchId}:alice`, `${body.batchId}:carol`]));

    // The ledger: held once for the batch; the failed item's share released, the others captured.
    const money = await batchMoney(org.organizationId, body.batchId);
    expect(money).toEqual({ hold: 350_910_000n, released: 50_910_000n, captured: 300_000_000n, holds: 1 });
    const after = await expectLedgerInvariant(org.organizationId);
    expect(before.available - after.available).toBe(300_000_000n);
  });

  it('refuses the batch as a whole when the balance cannot cover it: stored REJECTED with its reason, nothing held, no item started', async () => {
    const poor = await createTestOrganization(service, 'approved', 'Poor Org');
    await fund(poor.organizationId, 100n);
    const body = batch([item('a', '60.00'), item('b', '60.00')]);
    const first = await send(poor.apiKey, body);
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ batchId: body.batchId, state: 'REJECTED', itemCount: 2 });
    const balance = await readBalance(poor.organizationId);
    expect(balance).toMatchObject({ available: 100_000_000n, held: 0n });

    const detail = await call(service, 'GET', `/batches/${body.batchId}`, { apiKey: poor.apiKey });
    expect(detail.body).toMatchObject({ state: 'REJECTED', items: {}, page: { items: [], nextCursor: null, hasMore: false } });
    expect(detail.body.rejectedReason).toMatch(/^insufficient_funds: .*120\.000000 USDC.*100\.000000 USDC available/);
    // The same batch again answers the same; another body under its id is 409.
    expect((await send(poor.apiKey, body)).body).toEqual(first.body);
    const other = await send(poor.apiKey, { ...body, items: [item('a', '10.00')] });
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('idempotency_key_conflict');
    await expectLedgerInvariant(poor.organizationId);
  });

  it('checks every item before anything moves, and names the offending items by index and itemRef', async () => {
    const before = await readBalance(org.organizationId);
    const duplicate = await send(org.apiKey, batch([item('x', '10.00'), item('y', '10.00'), item('x', '11.00')]));
    expect(duplicate.status).toBe(400);
    expect(duplicate.body).toMatchObject({ error: 'duplicate_item_ref', items: [{ index: 2, itemRef: 'x', firstIndex: 0 }] });

    const amounts = await send(org.apiKey, batch([item('ok', '10.00'), item('decimals', '10.0000001'), item('euro', '10.00', { sendAmount: { amount: '10.00', currency: 'EUR' } }), item('zero', '0')]));
    expect(amounts.status).toBe(400);
    expect(amounts.body.error).toBe('invalid_send_amount');
    expect(amounts.body.items.map((row: { index: number; itemRef: string }) => [row.index, row.itemRef])).toEqual([[1, 'decimals'], [2, 'euro'], [3, 'zero']]);

    const tooSmall = await send(org.apiKey, batch([item('ok', '10.00'), item('dust', '0.01')]));
    expect(tooSmall.status).toBe(400);
    expect(tooSmall.body).toMatchObject({ error: 'invalid_send_amount', items: [{ index: 1, itemRef: 'dust' }] });

    const badAccount = await send(org.apiKey, batch([item('ok', '10.00'), item('bad', '10.00', { beneficiary: { ...beneficiary, account: '123' } })]));
    expect(badAccount.status).toBe(400);
    expect(badAccount.body.error).toBe('validation');
    expect(badAccount.body.issues[0].path.slice(0, 2)).toEqual(['items', 1]);
    expect(badAccount.body.issues[0].message).toContain('bad');

    const both = await send(org.apiKey, batch([item('both', '10.00', { recipientId: 'rcp_x' })]));
    expect(both.status).toBe(400);
    expect(both.body.error).toBe('validation');

    const wrongRail = await send(org.apiKey, batch([item('ok', '10.00')], { provider: 'no-such-rail' }));
    expect(wrongRail.status).toBe(400);
    expect(wrongRail.body.issues[0].path).toEqual(['provider']);

    const tooMany = await send(org.apiKey, batch(Array.from({ length: 1001 }, (_, index) => item(`i${index}`, '1.00'))));
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toBe('validation');

    expect(await readBalance(org.organizationId)).toEqual(before);
  });

  it('resolves saved recipients of the caller only, and sets their lastUsedAt when their item starts', async () => {
    const saved = await call(service, 'POST', '/recipients', { apiKey: org.apiKey, body: { name: 'Saved Payee', type: 'bank', ...recipientFields() } });
    expect(saved.status).toBe(201);
    const stranger = await createTestOrganization(service, 'approved', 'Stranger');
    const theirs = await call(service, 'POST', '/recipients', { apiKey: stranger.apiKey, body: { name: 'Their Payee', type: 'bank', ...recipientFields() } });

    const unknown = await send(org.apiKey, batch([item('mine', '10.00', { beneficiary: undefined, recipientId: saved.body.id }), item('theirs', '10.00', { beneficiary: undefined, recipientId: theirs.body.id })]));
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'unknown_recipient', items: [{ index: 1, itemRef: 'theirs', recipientId: theirs.body.id }] });

    const body = batch([item('mine', '10.00', { beneficiary: undefined, recipientId: saved.body.id })]);
    expect((await send(org.apiKey, body)).status).toBe(202);
    const detail = await completed(org.apiKey, body.batchId);
    expect(detail.items).toEqual({ RECONCILED: 1 });
    const payment = await call(service, 'GET', `/transactions/${encodeURIComponent(`${body.batchId}:mine`)}`, { apiKey: org.apiKey });
    expect(payment.body.state).toBe('RECONCILED');
    const after = await call(service, 'GET', `/recipients/${saved.body.id}`, { apiKey: org.apiKey });
    expect(after.body.lastUsedAt).not.toBeNull();
  });

  it('screens each item: a hit fails that item alone with its failureReason and releases its share', async () => {
    const listed = screeningList[0]!;
    const body = batch([item('clean', '20.00'), item('listed', '30.00', { beneficiary: { ...beneficiary, name: listed } })]);
    expect((await send(org.apiKey, body)).status).toBe(202);
    const detail = await completed(org.apiKey, body.batchId);
    expect(detail.items).toEqual({ RECONCILED: 1, FAILED: 1 });
    expect(detail.page.items[1]).toMatchObject({ itemRef: 'listed', state: 'FAILED', failureReason: 'compliance_hold' });
    const money = await batchMoney(org.organizationId, body.batchId);
    expect(money).toMatchObject({ hold: 50_000_000n, released: 30_000_000n, captured: 20_000_000n });
    // Support reads which items started and which failed from the batch's execution history.
    const history = await until(() => operationHistory(org.organizationId, body.batchId), (found) => found?.lines.some((line) => line.text === 'execution succeeded') ?? false, { what: 'the batch execution to end' });
    const texts = history!.lines.map((line) => line.text);
    expect(texts).toContainEqual(expect.stringMatching(/^left StartItems after .*: outcome started, .*items 1–2 of 2 \(clean … listed\): 1 started; 1 failed: listed compliance_hold$/));
    expect(texts).toContainEqual(expect.stringMatching(/^left FollowItems after .*: outcome done, RECONCILED 1, FAILED 1$/));
  });

  it('never touches a payment an item id already names', async () => {
    const batchId = key('batch');
    const taken = await call(service, 'POST', '/transactions', {
      apiKey: org.apiKey,
      body: { idempotencyKey: `${batchId}:taken`, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.00', currency: 'USDC' }, recipientReference: 'single', beneficiary },
    });
    expect(taken.status).toBe(202);
    const refused = await send(org.apiKey, batch([item('fresh', '10.00'), item('taken', '12.00')], { batchId }));
    expect(refused.status).toBe(400);
    expect(refused.body.issues).toEqual([{ path: ['items', 1, 'itemRef'], message: expect.stringContaining('already names a payment') }]);
    const single = await call(service, 'GET', `/transactions/${encodeURIComponent(`${batchId}:taken`)}`, { apiKey: org.apiKey });
    expect(single.body.timeline[0].detail).toBeUndefined();
    // The refusal gave up its claim on the batchId's intake (decision 151): the batch mended is
    // accepted at once, sent once, not a 503 while the lease runs.
    const mended = await call(service, 'POST', '/batches', { apiKey: org.apiKey, body: batch([item('fresh', '10.00')], { batchId }) });
    expect(mended.body).toMatchObject({ batchId, state: 'ACCEPTED' });
  });

  it('50 concurrent identical submissions: one batch, one funding transfer, listed once', async () => {
    const body = batch([item('one', '10.00'), item('two', '11.00'), item('three', '12.00')]);
    // One of them does the intake (reads, price, writes); the others wait for its answer (decision 151).
    const intakes: string[] = [];
    process.env.COUNT_CAPACITY = '1';
    const stop = observeConsumedCapacity((record) => {
      if (record.command === 'BatchGetItem' && JSON.stringify(record.input).includes(`${body.batchId}:one`)) intakes.push(record.command);
    });
    let answers;
    try {
      answers = await Promise.all(Array.from({ length: 50 }, () => send(org.apiKey, body)));
    } finally {
      stop();
      delete process.env.COUNT_CAPACITY;
    }
    expect(intakes).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.status))).toEqual(new Set([202]));
    expect(new Set(answers.map((answer) => answer.body.batchId))).toEqual(new Set([body.batchId]));
    await completed(org.apiKey, body.batchId);
    const money = await batchMoney(org.organizationId, body.batchId);
    expect(money).toEqual({ hold: 33_000_000n, released: 0n, captured: 33_000_000n, holds: 1 });
    const list = await call(service, 'GET', '/batches?limit=500', { apiKey: org.apiKey });
    expect(list.body.batches.filter((row: { batchId: string }) => row.batchId === body.batchId)).toHaveLength(1);
    // The same body spelled differently is the same batch; another body is 409.
    const respelled = await send(org.apiKey, { ...body, items: body.items.map((entry) => ({ ...entry, sendAmount: { amount: `${(entry as { sendAmount: { amount: string } }).sendAmount.amount}0`, currency: 'USDC' } })) });
    expect(respelled.status).toBe(202);
    const other = await send(org.apiKey, { ...body, items: [item('one', '10.00')] });
    expect(other).toMatchObject({ status: 409, body: { error: 'idempotency_key_conflict' } });
  });

  it("waits on another request's intake of its batchId: accepted once that claim lapses; while it holds, 503 to send again, nothing stored", async () => {
    const held = batch([item('x', '10.00')]);
    await claimBatchIntake(org.organizationId, held.batchId, 'a request still running', 60_000);
    // Sent once: what the integrator reads while the other request holds the intake.
    const busy = await call(service, 'POST', '/batches', { apiKey: org.apiKey, body: held });
    expect(busy).toMatchObject({ status: 503, body: { error: 'unavailable', message: expect.stringContaining('being accepted') } });
    expect(busy.headers.get('retry-after')).toBe('1');
    expect((await call(service, 'GET', `/batches/${held.batchId}`, { apiKey: org.apiKey })).status).toBe(404);
    // A holder that died: its lease lapses and the waiting request does the intake itself.
    const orphaned = batch([item('y', '10.00')]);
    await claimBatchIntake(org.organizationId, orphaned.batchId, 'a request that died', 1_000);
    expect((await call(service, 'POST', '/batches', { apiKey: org.apiKey, body: orphaned })).body).toMatchObject({ batchId: orphaned.batchId, state: 'ACCEPTED' });
    await completed(org.apiKey, orphaned.batchId);
  });

  it('its steps delivered many times at once start each item once and count it once', async () => {
    const body = batch(Array.from({ length: 12 }, (_, index) => item(`d${index}`, `${20 + index}.00`)));
    expect((await send(org.apiKey, body)).status).toBe(202);
    const ref = { organizationId: org.organizationId, batchId: body.batchId };
    // Ten deliveries of each step racing the workflow's own.
    await Promise.all([...Array.from({ length: 10 }, () => startItems(ref)), ...Array.from({ length: 10 }, () => followItems(ref))]);
    const detail = await completed(org.apiKey, body.batchId);
    expect(detail.items).toEqual({ RECONCILED: 12 });
    const payments = await call(service, 'GET', '/transactions?limit=500', { apiKey: org.apiKey });
    expect(payments.body.transactions.filter((row: { transactionId: string }) => row.transactionId.startsWith(`${body.batchId}:`))).toHaveLength(12);
    const total = Array.from({ length: 12 }, (_, index) => BigInt(20 + index) * 1_000_000n).reduce((sum, value) => sum + value, 0n);
    expect(await batchMoney(org.organizationId, body.batchId)).toEqual({ hold: total, released: 0n, captured: total, holds: 1 });
  });

  it('costs one initiate token per item, charged once valid; a batch larger than the bucket says it can never pass', async () => {
    const limited = await createTestOrganization(service, 'approved', 'Limited Org');
    await fund(limited.organizationId, 10_000n);
    // The contract's burst, refilled slowly, so what each request took stays visible.
    await setRateLimit(limited.organizationId, 'initiate', { burst: 30, perSecond: 0.1 });
    const invalid = await send(limited.apiKey, batch(Array.from({ length: 20 }, (_, index) => item('same', `${index + 1}.00`))));
    expect(invalid.status).toBe(400);
    // The refused batch cost one token, not twenty.
    expect(invalid.headers.get('ratelimit-remaining')).toBe('29');

    const ten = await send(limited.apiKey, batch(Array.from({ length: 10 }, (_, index) => item(`p${index}`, '20.00'))));
    expect(ten.status).toBe(202);
    expect(ten.headers.get('ratelimit-remaining')).toBe('19');

    const huge = await send(limited.apiKey, batch(Array.from({ length: 31 }, (_, index) => item(`h${index}`, '20.00'))));
    expect(huge.status).toBe(429);
    expect(huge.body).toMatchObject({ error: 'rate_limited', capacity: 30, needed: 31 });
    expect(huge.body.message).toContain('can never pass');
    expect(huge.headers.get('retry-after')).not.toBeNull();

    const full = await send(limited.apiKey, batch(Array.from({ length: 25 }, (_, index) => item(`f${index}`, '20.00'))));
    expect(full.status).toBe(429);
    expect(full.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);

    // An operator raises the organization's initiate bucket (admin org limits): the large batch passes.
    await setRateLimit(limited.organizationId, 'initiate', { burst: 200, perSecond: 5 });
    await until(async () => (await send(limited.apiKey, batch(Array.from({ length: 31 }, (_, index) => item(`h${index}`, '20.00')), { batchId: 'raised-batch-0001' }))).status, (status) => status === 202, { what: 'the raised limit to admit the batch', timeoutMs: 20_000, intervalMs: 1_000 });
  });
});

describe('a batch that can never pass', () => {
  it('is refused before any read: a 1,000-item batch against a bucket of 30 costs the key read and the charge, no lookup, price or batch read', async () => {
    const small = await createTestOrganization(service, 'approved', 'Small Bucket Org');
    await fund(small.organizationId, 100_000n);
    // Resent on a 503: a second copy of the recipient changes nothing this test reads.
    const saved = await callResending(service, 'POST', '/recipients', { apiKey: small.apiKey, body: { name: 'Ana Ruiz', type: 'bank', account: beneficiary.account } });
    expect(saved.status).toBe(201);
    // Items that would each need a lookup (a saved recipient), a price and a check of their id.
    const body = batch(Array.from({ length: 1_000 }, (_, index) => item(`r${index}`, '20.00', { beneficiary: undefined, recipientId: saved.body.id })));
    const calls: { command: string; input: string }[] = [];
    process.env.COUNT_CAPACITY = '1';
    const stop = observeConsumedCapacity((record) => {
      const input = JSON.stringify(record.input);
      if (input.includes(small.organizationId)) calls.push({ command: record.command, input });
    });
    let answer;
    try {
      // Sent once (not through send, which resends a 503): its calls are what is counted.
      answer = await call(service, 'POST', '/batches', { apiKey: small.apiKey, body });
    } finally {
      stop();
      delete process.env.COUNT_CAPACITY;
    }
    expect(answer.status).toBe(429);
    expect(answer.body).toMatchObject({ error: 'rate_limited', capacity: 30, needed: 1_000 });
    // What the intake would read: the batch, the home wallet, recipients, payments, holds. None of it.
    expect(calls.filter((call) => /BATCH|WALLET#|RECIPIENT#|TX#|COMPLIANCE#|BALANCE#/.test(call.input))).toEqual([]);
    // Only the request's access: its key's item and its bucket's charge.
    expect(calls.filter((call) => call.input.includes('APIKEY#') || (call.command === 'UpdateItem' && call.input.includes('"sk":"ORG"'))).map((call) => call.command).sort()).toEqual(['GetItem', 'UpdateItem']);
  });
});

describe('GET /batches and GET /batches/{batchId}', () => {
  it('lists newest first with cursors, pages items in order with cursors, each item once, and refuses a forged cursor', async () => {
    const reader = await createTestOrganization(service, 'approved', 'Reader Org');
    await fund(reader.organizationId, 10_000n);
    await setRateLimits(reader.organizationId, { burst: 100_000, perSecond: 10_000 });
    const ids: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const body = batch(Array.from({ length: 5 }, (_, index) => item(`r${index}`, `${index + 11}.00`)));
      expect((await send(reader.apiKey, body)).status).toBe(202);
      ids.push(body.batchId);
    }
    const first = await call(service, 'GET', '/batches?limit=2', { apiKey: reader.apiKey });
    expect(first.body).toMatchObject({ count: 2, hasMore: true });
    const second = await call(service, 'GET', `/batches?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`, { apiKey: reader.apiKey });
    expect([...first.body.batches, ...second.body.batches].map((row: { batchId: string }) => row.batchId)).toEqual([...ids].reverse());
    expect(second.body.nextCursor).toBeNull();
    expect(first.body.batches[0]).toMatchObject({ itemCount: 5, totalSendAmount: { amount: '65000000', currency: 'USDC', scale: 6 }, provider });

    // Items page while the items move: every item exactly once, in body order.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: any } = await call(service, 'GET', `/batches/${ids[0]}?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { apiKey: reader.apiKey });
      seen.push(...page.body.page.items.map((row: { itemRef: string }) => row.itemRef));
      cursor = page.body.page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(['r0', 'r1', 'r2', 'r3', 'r4']);

    const forged = await call(service, 'GET', `/batches/${ids[0]}?cursor=bm90LWEtY3Vyc29y.abc`, { apiKey: reader.apiKey });
    expect(forged).toMatchObject({ status: 400, body: { error: 'invalid_cursor' } });
    const limit = await call(service, 'GET', `/batches/${ids[0]}?limit=501`, { apiKey: reader.apiKey });
    expect(limit.status).toBe(400);

    // Another organization's batch does not exist for the caller.
    expect((await call(service, 'GET', `/batches/${ids[0]}`, { apiKey: org.apiKey })).status).toBe(404);
    expect((await call(service, 'GET', '/batches/no-such-batch', { apiKey: reader.apiKey })).body.error).toBe('not_found');
    for (const id of ids) await completed(reader.apiKey, id);
  });
});

function recipientFields() {
  const { name: _name, phone, ...rest } = beneficiary as typeof beneficiary & { phone?: { callingCode: string; number: string } };
  return { ...rest, ...(phone ? { phoneCallingCode: phone.callingCode, phoneNumber: phone.number } : {}) };
}
