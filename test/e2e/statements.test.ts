import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { until } from '../support/eventually.ts';
import { creditDeposit } from '#store/ledger.ts';
import { batchPutAll, observeConsumedCapacity } from '#store/client.ts';
import { backfillFeeLines, createTransactionItems, getTransaction, type TransactionRecord } from '#store/transactions.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { setRateLimits } from '#store/organizations.ts';
import { statementCsvColumns } from '#schemas/statements.ts';
import { reloadConfig } from '#platform/config.ts';

let service: LocalService;
let org: TestOrganization;
let other: TestOrganization;
let seq = 0;

const mx = findCorridor('USDC', 'MXN', 'MX')!;
const beneficiary = sampleBeneficiary(mx);
const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;
const dayMs = 24 * 3600 * 1000;

async function fund(organizationId: string, usdc: bigint) {
  await creditDeposit({ organizationId, depositId: key('dep'), amount: usdc * 1_000_000n, rail: 'wire', memo: 'test deposit' });
}

async function pay(who: TestOrganization, amount: string, recipientReference = `invoice ${amount}`) {
  const { status, body } = await call(service, 'POST', '/transactions', {
    apiKey: who.apiKey,
    body: { idempotencyKey: key('pay'), corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount, currency: 'USDC' }, recipientReference, beneficiary },
  });
  expect(status).toBe(202);
  return body.transactionId as string;
}

async function statement(who: TestOrganization, query = '', headers: Record<string, string> = {}) {
  return call(service, 'GET', `/statements${query}`, { apiKey: who.apiKey, headers });
}

/** The line of a payment, read until the list index shows it in `state`'s fee (the index is eventually consistent). */
async function lineOnceSettled(who: TestOrganization, transactionId: string, settled: (line: any) => boolean) {
  return until(
    async () => (await statement(who)).body.lines.find((line: { transactionId: string }) => line.transactionId === transactionId),
    (line) => line !== undefined && settled(line),
    { what: `the statement line of ${transactionId}`, timeoutMs: 20_000 },
  );
}

/** RFC 4180 as a spreadsheet reads it: quoted fields, doubled quotes, CRLF rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') (field += '"'), (i += 1);
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') row.push(field), (field = '');
    else if (char === '\r' && text[i + 1] === '\n') row.push(field), rows.push(row), (row = []), (field = ''), (i += 1);
    else field += char;
  }
  expect(field, 'the CSV ends with CRLF').toBe('');
  return rows;
}

const ids: Record<string, string> = {};

/** A payment's items as the store writes them, but not its outbox event, which would start a workflow: history, not a payment to run. */
function storedWithoutEvent(record: TransactionRecord): Record<string, unknown>[] {
  const [payment, line] = createTransactionItems(record);
  return [payment!.Put.Item, line!.Put.Item];
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Statement Org');
  other = await createTestOrganization(service, 'approved', 'Other Org');
  await fund(org.organizationId, 100_000n);
  await fund(other.organizationId, 10_000n);
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });

  ids.reconciled = await pay(org, '250.00', '=HYPERLINK("http://evil.example","click")');
  ids.failed = await pay(org, '100.91');
  ids.refunded = await pay(org, '100.92');
  ids.inDoubt = await pay(org, '100.94');
  ids.foreign = await pay(other, '75.00');
  const batchId = key('batch');
  const { status } = await call(service, 'POST', '/batches', {
    apiKey: org.apiKey,
    body: {
      batchId, corridor: { to: 'MXN', destinationCountry: 'MX' }, provider: mx.routes[0]!.provider,
      items: [
        { itemRef: 'alice', sendAmount: { amount: '40.00', currency: 'USDC' }, recipientReference: 'payroll, alice', beneficiary },
        { itemRef: 'bob', sendAmount: { amount: '30.91', currency: 'USDC' }, recipientReference: '+1 bonus', beneficiary },
      ],
    },
  });
  expect(status).toBe(202);
  ids.batchPaid = `${batchId}:alice`;
  ids.batchFailed = `${batchId}:bob`;
  // The batch's workflow creates its items' payments: until it has, they are not there to read.
  await until(async () => (await call(service, 'GET', `/batches/${encodeURIComponent(batchId)}`, { apiKey: org.apiKey })).body, (body) => body.state === 'COMPLETED', {
    what: `batch ${batchId} to complete`, timeoutMs: 30_000,
  });
  for (const [name, id] of Object.entries(ids)) {
    const who = name === 'foreign' ? other : org;
    await untilSettled(service, who.apiKey, `/transactions/${encodeURIComponent(id)}`, 30_000);
  }
}, 120_000);

afterAll(async () => {
  await service?.stop();
});

describe('GET /statements', () => {
  it('lists the payments of the day, batch items included, with realized fees only and exact totals', async () => {
    const tx = await getTransaction(org.organizationId, ids.reconciled!);
    const batchTx = await getTransaction(org.organizationId, ids.batchPaid!);
    // The list index is eventually consistent: read until it shows the last reconciliation.
    await lineOnceSettled(org, ids.batchPaid!, (line) => line.fee.length === 1);
    await lineOnceSettled(org, ids.reconciled!, (line) => line.fee.length === 1);
    const before = Date.now();
    const { status, headers, body } = await statement(org);
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(body.integratorId).toBe(org.organizationId);

    // Defaults: to is now, from 30 days before it, both in UTC with milliseconds.
    expect(body.period.to).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(body.period.to) - before)).toBeLessThan(5_000);
    expect(Date.parse(body.period.to) - Date.parse(body.period.from)).toBe(30 * dayMs);

    const byId = new Map(body.lines.map((line: { transactionId: string }) => [line.transactionId, line]));
    expect([...byId.keys()].sort()).toEqual([ids.reconciled, ids.failed, ids.refunded, ids.inDoubt, ids.batchPaid, ids.batchFailed].sort());
    expect(byId.has(ids.foreign!)).toBe(false);

    expect(byId.get(ids.reconciled!)).toEqual({
      transactionId: ids.reconciled,
      corridor: { from: 'USDC', to: 'MXN', destinationCountry: 'MX' },
      sendAmount: { amount: '250000000', currency: 'USDC', scale: 6 },
      recipientReference: '=HYPERLINK("http://evil.example","click")',
      fee: [{ amount: tx!.fee, currency: 'USDC', scale: 6 }],
      initiatedAt: tx!.createdAt,
    });
    expect(BigInt(tx!.fee)).toBeGreaterThan(0n);
    expect(byId.get(ids.batchPaid!)).toMatchObject({ fee: [{ amount: batchTx!.fee, currency: 'USDC', scale: 6 }], recipientReference: 'payroll, alice' });
    // Funded, then failed, refunded or stopped for a person: nothing realized.
    for (const name of ['failed', 'refunded', 'inDoubt', 'batchFailed']) expect((byId.get(ids[name]!) as { fee: unknown[] }).fee, name).toEqual([]);

    // Oldest first.
    const times = body.lines.map((line: { initiatedAt: string }) => line.initiatedAt);
    expect(times).toEqual([...times].sort());

    const sent = 250_000000n + 100_910000n + 100_920000n + 100_940000n + 40_000000n + 30_910000n;
    expect(body.totals).toEqual({
      transactionCount: 6,
      initiatedVolume: [{ amount: sent.toString(), currency: 'USDC', scale: 6 }],
      feesEarned: [{ amount: (BigInt(tx!.fee) + BigInt(batchTx!.fee)).toString(), currency: 'USDC', scale: 6 }],
    });
    expect(Date.parse(body.generatedAt)).toBeGreaterThanOrEqual(before);
  });

  it('answers the same statement as CSV for Accept: text/csv, formulas defused and fields quoted', async () => {
    const tx = await getTransaction(org.organizationId, ids.reconciled!);
    const json = (await statement(org)).body;
    const { status, headers, body } = await statement(org, '', { accept: 'text/csv' });
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(headers.get('vary')).toBe('accept');
    expect(body).toContain(`'=HYPERLINK(""http://evil.example"",""click"")"`);
    const rows = parseCsv(body);
    expect(rows[0]).toEqual([...statementCsvColumns]);
    expect(rows).toHaveLength(json.lines.length + 1);
    const byId = new Map(rows.slice(1).map((row) => [row[0], row]));
    const fee = BigInt(tx!.fee);
    expect(byId.get(ids.reconciled)).toEqual([
      ids.reconciled, tx!.createdAt, 'USDC', 'MXN', 'MX', '250.000000', `'=HYPERLINK("http://evil.example","click")`,
      `${fee / 1_000_000n}.${(fee % 1_000_000n).toString().padStart(6, '0')}`, 'USDC',
    ]);
    expect(byId.get(ids.failed)!.slice(5)).toEqual(['100.910000', 'invoice 100.91', '', '']);
    expect(byId.get(ids.batchPaid)![6]).toBe('payroll, alice');
    expect(byId.get(ids.batchFailed)![6]).toBe(`'+1 bonus`);
    expect(rows.slice(1).map((row) => row[0])).toEqual(json.lines.map((line: { transactionId: string }) => line.transactionId));
    // JSON stays the answer to anything else.
    expect((await statement(org, '', { accept: 'text/html' })).headers.get('content-type')).toBe('application/json');
    expect((await statement(org, '', { accept: 'text/csv;q=0.5, application/json' })).headers.get('content-type')).toBe('application/json');
  });

  it('shows a still-running payment with no fee', async () => {
    process.env.PAYOUT_SETTLE_SECONDS = '3600';
    try {
      const id = await pay(org, '12.00');
      await untilSettled(service, org.apiKey, `/transactions/${encodeURIComponent(id)}`, 20_000, (body) => body.state === 'SETTLING');
      const line = await lineOnceSettled(org, id, () => true);
      expect(line.fee).toEqual([]);
      expect(line.sendAmount).toEqual({ amount: '12000000', currency: 'USDC', scale: 6 });
    } finally {
      delete process.env.PAYOUT_SETTLE_SECONDS;
    }
  });

  it("never shows another organization's payments", async () => {
    const { body } = await statement(other);
    expect(body.lines.map((line: { transactionId: string }) => line.transactionId)).toEqual([ids.foreign]);
    expect(body.totals.transactionCount).toBe(1);
  });

  it('takes the half-open window [from, to) to the millisecond, and echoes it in UTC', async () => {
    // Payments stamped around a window's two ends, written as the store writes them (no workflow: they are history).
    const window = { from: '2026-03-01T00:00:00.000Z', to: '2026-03-02T00:00:00.000Z' };
    const at = (base: string, deltaMs: number) => new Date(Date.parse(base) + deltaMs).toISOString();
    const stamps = {
      beforeFrom: at(window.from, -1), atFrom: at(window.from, 0), lastInside: at(window.to, -1), atTo: at(window.to, 0),
    };
    const template = (await getTransaction(org.organizationId, ids.reconciled!))!;
    const records = Object.entries(stamps).map(([name, createdAt]): TransactionRecord => ({
      ...template, transactionId: `edge-${name}-${seq}`, createdAt, updatedAt: createdAt, recipientReference: name,
    }));
    await batchPutAll(records.flatMap(storedWithoutEvent));

    const { status, body } = await statement(org, `?from=${encodeURIComponent('2026-03-01T01:00:00+01:00')}&to=${encodeURIComponent('2026-03-01T19:00:00-05:00')}`);
    expect(status).toBe(200);
    expect(body.period).toEqual(window);
    expect(body.lines.map((line: { recipientReference: string }) => line.recipientReference)).toEqual(['atFrom', 'lastInside']);
    expect(body.totals.transactionCount).toBe(2);
    expect(body.totals.feesEarned).toEqual([{ amount: (2n * BigInt(template.fee)).toString(), currency: 'USDC', scale: 6 }]);

    // Below the millisecond, each end is taken up to the next one: a payment stamped .000 is before from .0000001.
    const finer = await statement(org, `?from=2026-03-01T00:00:00.0000001Z&to=2026-03-01T23:59:59.9990001Z`);
    expect(finer.body.period).toEqual({ from: '2026-03-01T00:00:00.001Z', to: '2026-03-02T00:00:00.000Z' });
    expect(finer.body.lines.map((line: { recipientReference: string }) => line.recipientReference)).toEqual(['lastInside']);

    // Only to: from is 30 days before it.
    const onlyTo = await statement(org, `?to=${window.to}`);
    expect(onlyTo.body.period).toEqual({ from: '2026-01-31T00:00:00.000Z', to: window.to });
    expect(onlyTo.body.lines.map((line: { recipientReference: string }) => line.recipientReference)).toEqual(['beforeFrom', 'atFrom', 'lastInside']);

    // A window with nothing in it is an empty statement, not an error.
    const empty = await statement(org, '?from=2025-01-01T00:00:00Z&to=2025-01-02T00:00:00Z');
    expect(empty.body).toMatchObject({ lines: [], totals: { transactionCount: 0, initiatedVolume: [], feesEarned: [] } });
  });

  it('gives payments from before statement lines theirs with the backfill, once', async () => {
    const template = (await getTransaction(org.organizationId, ids.reconciled!))!;
    const createdAt = '2026-04-01T12:00:00.000Z';
    // A payment as stored before lines existed: the payment item alone.
    await batchPutAll([storedWithoutEvent({ ...template, transactionId: `old-${seq}`, createdAt, updatedAt: createdAt })[0]!]);
    const query = '?from=2026-04-01T00:00:00Z&to=2026-04-02T00:00:00Z';
    expect((await statement(org, query)).body.lines).toEqual([]);
    expect((await backfillFeeLines()).lines).toBe(1);
    const { body } = await statement(org, query);
    expect(body.lines).toEqual([expect.objectContaining({ transactionId: `old-${seq}`, initiatedAt: createdAt, fee: [{ amount: template.fee, currency: 'USDC', scale: 6 }] })]);
    expect((await backfillFeeLines()).lines).toBe(0);
  });

  it('refuses a period that is not one, an unknown parameter and a malformed date', async () => {
    for (const query of ['?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z', '?from=2026-03-01T00:00:00Z&to=2026-03-01T01:00:00%2B01:00', `?from=${new Date(Date.now() + dayMs).toISOString()}`]) {
      const { status, body } = await statement(org, query);
      expect(status, query).toBe(400);
      expect(body.error, query).toBe('invalid_period');
    }
    for (const query of ['?limit=10', '?from=2026-03-01T00:00:00Z&cursor=abc', '?From=2026-03-01T00:00:00Z']) {
      const { status, body } = await statement(org, query);
      expect(status, query).toBe(400);
      expect(body.error, query).toBe('invalid_query');
    }
    for (const query of ['?from=yesterday', '?to=2026-03-01', '?from=2026-03-01T00:00:00', '?to=2026-02-30T00:00:00Z', '?from=']) {
      const { status, body } = await statement(org, query);
      expect(status, query).toBe(400);
      expect(body.error, query).toBe('validation');
      expect(body.issues[0].path[0], query).toBe('query');
    }
  });

  it('refuses a period whose statement is more than one answer carries, saying how to ask', async () => {
    for (const amount of ['40.00', '41.00', '42.00']) await pay(org, amount, 'one of many');
    process.env.STATEMENT_MAX_BYTES = '1000';
    reloadConfig();
    try {
      const json = await statement(org);
      expect(json.status).toBe(400);
      expect(json.body.error).toBe('invalid_period');
      // The read stopped once the lines passed the bound: what it counted is a floor.
      expect(json.body.message).toMatch(/^This period's statement \(more than \d+ payments, more than [\d.]+ MB as JSON\) is more than one answer carries \(0\.0 MB\): ask for a shorter period, or for CSV/);
      const csv = await statement(org, '', { accept: 'text/csv' });
      expect(csv.status).toBe(400);
      expect(csv.body.message).toMatch(/as CSV\) .*ask for a shorter period\.$/);
      // A period that fits is answered as before.
      const empty = await statement(org, `?from=2020-01-01T00:00:00Z&to=2020-01-02T00:00:00Z`);
      expect(empty.status).toBe(200);
      expect(empty.body.lines).toEqual([]);
    } finally {
      delete process.env.STATEMENT_MAX_BYTES;
      reloadConfig();
    }
  });

  it("refuses a statement within the bound whose body, escaped inside Lambda's response, is past Lambda's 6 MB: 400, never API Gateway's 500", async () => {
    // 6,000 payments whose references are 200 double quotes (any text up to 200 is valid): a 4.1 MB JSON
    // body, which travels as 6.8 MB inside the Lambda result (each quote escaped once in the body, twice there).
    const window = { from: '2025-05-01T00:00:00.000Z', to: '2025-05-02T00:00:00.000Z' };
    const template = (await getTransaction(org.organizationId, ids.reconciled!))!;
    const lines = Array.from({ length: 6000 }, (_, index) => {
      const createdAt = new Date(Date.parse(window.from) + index * 1000).toISOString();
      return storedWithoutEvent({ ...template, transactionId: `quoted-${index}`, createdAt, updatedAt: createdAt, recipientReference: '"'.repeat(200) })[1]!;
    });
    await batchPutAll(lines);
    const query = `?from=${window.from}&to=${window.to}`;

    const json = await statement(org, query);
    expect(json.status).toBe(400);
    expect(json.body.error).toBe('invalid_period');
    expect(json.body.message).toMatch(/^This period's statement \(6000 payments, [\d.]+ MB as JSON\) is more than one answer carries/);
    // As CSV the same lines travel in about 5.3 MB: answered.
    const csv = await statement(org, query, { accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(parseCsv(csv.body)).toHaveLength(6001);
  }, 120_000);

  it('stops reading a refused statement once its lines pass the bound: its cost is the bound, not the history', async () => {
    const template = (await getTransaction(org.organizationId, ids.reconciled!))!;
    const day = { from: '2026-05-01T00:00:00.000Z', to: '2026-05-02T00:00:00.000Z' };
    let seeded = 0;
    /** `count` more statement lines in the day (the lines alone: the statement reads nothing else). */
    const seed = async (count: number) => {
      const lines = Array.from({ length: count }, () => {
        seeded += 1;
        const createdAt = new Date(Date.parse(day.from) + seeded * 20_000).toISOString();
        return storedWithoutEvent({ ...template, transactionId: `history-${String(seeded).padStart(5, '0')}`, createdAt, updatedAt: createdAt })[1]!;
      });
      await batchPutAll(lines);
    };
    /** The statement of the day refused, with what its Query calls read. */
    const refusedRead = async (accept: string) => {
      const reads: { calls: number; items: number } = { calls: 0, items: 0 };
      const stop = observeConsumedCapacity((record) => {
        if (record.command === 'Query' && JSON.stringify(record.input).includes(`FEELINE#${day.from}`)) {
          reads.calls += 1;
          reads.items += record.itemsRead;
        }
      });
      try {
        const { status, body } = await statement(org, `?from=${day.from}&to=${day.to}`, { accept });
        expect(status).toBe(400);
        expect(body.error).toBe('invalid_period');
      } finally {
        stop();
      }
      return reads;
    };
    process.env.STATEMENT_MAX_BYTES = '20000';
    process.env.COUNT_CAPACITY = '1';
    reloadConfig();
    try {
      await seed(700);
      const json = await refusedRead('application/json');
      const csv = await refusedRead('text/csv');
      // About the bound's worth of lines (a JSON line is about 300 bytes, a CSV row about 100), not the day's 700.
      expect(json.items).toBeGreaterThan(20_000 / 400);
      expect(json.items).toBeLessThan(200);
      expect(csv.items).toBeLessThan(500);
      // Twice the history: the same reads.
      await seed(700);
      expect(await refusedRead('application/json')).toEqual(json);
      expect(await refusedRead('text/csv')).toEqual(csv);
    } finally {
      delete process.env.STATEMENT_MAX_BYTES;
      delete process.env.COUNT_CAPACITY;
      reloadConfig();
    }
    // It seeds 1,400 statement lines in two rounds (each more than the CSV bound reads): more than the default 30 s on a busy machine.
  }, 120_000);

  it('is live on this environment, as capabilities say', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    expect(body.features.find((feature: { feature: string }) => feature.feature === 'statements')).toMatchObject({ status: 'live' });
  });
});
