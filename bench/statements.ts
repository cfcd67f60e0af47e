/**
 * GET /statements on the local stack, for `npm run bench` (bench/run.ts calls statementFigures):
 * - one organization's 10,000 payments in a day, seeded straight into the table with the store's own
 *   item builder (the point is the read, not 10,000 workflows), from one real RECONCILED payment as
 *   the template so the items are the size real ones are;
 * - GET /statements of that day over HTTP, JSON and CSV: p50/p99 of a few runs, and per statement the
 *   DynamoDB calls and read units;
 * - the same statement again after 20,000 more payments of the organization outside the day: the
 *   calls and units must not move (the read is one key range of statement lines, not the partition).
 */
import { performance } from 'node:perf_hooks';
import type { LocalService } from '../lib/local/service.ts';
import { batchPutAll, observeConsumedCapacity } from '#store/client.ts';
import { createTransactionItems, getTransaction, type TransactionRecord } from '#store/transactions.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { add, benchOrganization, emptyTally, percentiles, round, type Tally } from './payments.ts';

export interface StatementBenchOptions {
  service: LocalService;
  log: (message: string) => void;
}

const inWindow = 10_000;
const outsideWindow = 20_000;
const runs = 7;
const day = { from: '2026-06-01T00:00:00.000Z', to: '2026-06-02T00:00:00.000Z' };
const dayMs = 24 * 3600 * 1000;

/** `count` payments cloned from `template`, stamped evenly over [start, start + spanMs); one in ten failed (no fee). */
export function payments(template: TransactionRecord, label: string, count: number, start: string, spanMs: number, withLines = true): Record<string, unknown>[] {
  const startMs = Date.parse(start);
  return Array.from({ length: count }, (_, index) => {
    const createdAt = new Date(startMs + Math.floor((index * spanMs) / count)).toISOString();
    const record: TransactionRecord = {
      ...template,
      transactionId: `bench-${label}-${String(index).padStart(6, '0')}`,
      state: index % 10 === 9 ? 'FAILED' : 'RECONCILED',
      recipientReference: `invoice ${label} ${index}`,
      createdAt,
      updatedAt: createdAt,
    };
    // The payment and its statement line, not its outbox event, which would start a workflow.
    const [payment, line] = createTransactionItems(record);
    return withLines ? [payment!.Put.Item, line!.Put.Item] : [payment!.Put.Item];
  }).flat();
}

/** One real payment of the organization, paid through the API and waited on until RECONCILED: the template seeded items are cloned from. */
export async function reconciledTemplate(service: LocalService, organizationId: string, headers: Record<string, string>): Promise<TransactionRecord> {
  const corridor = findCorridor('USDC', 'MXN', 'MX')!;
  const accepted = await fetch(`${service.url}/transactions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      idempotencyKey: `bench-template-${Date.now().toString(36)}`, corridor: { to: 'MXN', destinationCountry: 'MX' },
      sendAmount: { amount: '250.00', currency: 'USDC' }, recipientReference: 'template', beneficiary: sampleBeneficiary(corridor),
    }),
  });
  if (accepted.status !== 202) throw new Error(`POST /transactions answered ${accepted.status}: ${await accepted.text()}`);
  const { transactionId } = (await accepted.json()) as { transactionId: string };
  let template: TransactionRecord | undefined;
  for (let waited = 0; template?.state !== 'RECONCILED'; waited += 100) {
    if (waited > 60_000) throw new Error(`the template payment did not reconcile: ${template?.state}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    template = await getTransaction(organizationId, transactionId);
  }
  return template;
}

export async function statementFigures({ service, log }: StatementBenchOptions) {
  const previousCapacityFlag = process.env.COUNT_CAPACITY;
  process.env.COUNT_CAPACITY = '1';
  delete process.env.PAYOUT_SETTLE_SECONDS;
  let tally: Tally | undefined;
  const stopObserving = observeConsumedCapacity((record) => {
    if (tally) add(tally, record);
  });
  try {
    log('statements: onboarding an organization and paying one real payment as the template');
    const { organizationId, headers } = await benchOrganization(service, 'Bench Statements Org');
    const template = await reconciledTemplate(service, organizationId, headers);
    const [paymentItem, lineItem] = createTransactionItems(template);
    const itemBytes = { payment: Buffer.byteLength(JSON.stringify(paymentItem!.Put.Item)), statementLine: Buffer.byteLength(JSON.stringify(lineItem!.Put.Item)) };

    log(`statements: seeding ${inWindow} payments in one day`);
    let started = performance.now();
    await batchPutAll(payments(template, 'day', inWindow, day.from, dayMs));
    const seedSeconds = round((performance.now() - started) / 1000, 1);

    const url = `${service.url}/statements?from=${encodeURIComponent(day.from)}&to=${encodeURIComponent(day.to)}`;
    const auth = { authorization: headers.authorization };
    const measure = async (accept: string) => {
      const samples: number[] = [];
      let units: Tally | undefined;
      let bytes = 0;
      // One warm-up run (JIT of this process and of DynamoDB Local), then the timed ones.
      for (let run = 0; run <= runs; run += 1) {
        tally = emptyTally();
        started = performance.now();
        const response = await fetch(url, { headers: { ...auth, accept } });
        const text = await response.text();
        const elapsed = performance.now() - started;
        if (response.status !== 200) throw new Error(`GET /statements answered ${response.status}: ${text.slice(0, 300)}`);
        if (run > 0) samples.push(elapsed);
        units = tally;
        bytes = Buffer.byteLength(text);
        if (accept === 'application/json') {
          const count = (JSON.parse(text) as { totals: { transactionCount: number } }).totals.transactionCount;
          if (count !== inWindow) throw new Error(`the statement counted ${count} payments, not ${inWindow}`);
        } else if (text.split('\r\n').length !== inWindow + 2) throw new Error('the CSV statement does not have one row per payment');
      }
      tally = undefined;
      // The request's own calls: the key read and the bucket charge, then the statement's Query pages.
      return { ...percentiles(samples), responseBytes: bytes, dynamoCalls: units!.calls, readUnits: round(units!.readUnits, 1), byCommand: units!.byCommand };
    };

    log('statements: timing GET /statements of the day, JSON and CSV');
    const json = await measure('application/json');
    const csv = await measure('text/csv');

    log(`statements: seeding ${outsideWindow} more payments of the organization outside the day, and reading the day again`);
    await batchPutAll(payments(template, 'before', outsideWindow / 2, '2026-01-01T00:00:00.000Z', 150 * dayMs));
    await batchPutAll(payments(template, 'after', outsideWindow / 2, '2026-06-02T00:00:00.000Z', 150 * dayMs));
    const jsonAfter = await measure('application/json');

    return {
      settings: {
        paymentsInWindow: inWindow, paymentsOutsideWindow: outsideWindow, window: day, runsTimed: runs, itemBytes,
        seedSecondsForTheWindow: seedSeconds, note: 'seeded with BatchWriteItem (each payment and its statement line) from one real RECONCILED payment (one in ten marked FAILED: no fee)',
      },
      target: 'a statement of 10,000 payments within 2 s; its DynamoDB calls and read units do not grow with payments outside its window',
      json,
      csv,
      jsonWithMorePaymentsOutside: jsonAfter,
      withinTarget: Math.max(json.p99, csv.p99, jsonAfter.p99) <= 2000,
      costIndependentOfOtherPayments: jsonAfter.dynamoCalls === json.dynamoCalls && jsonAfter.readUnits === json.readUnits,
    };
  } finally {
    stopObserving();
    if (previousCapacityFlag === undefined) delete process.env.COUNT_CAPACITY;
    else process.env.COUNT_CAPACITY = previousCapacityFlag;
  }
}
