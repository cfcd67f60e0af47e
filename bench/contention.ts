/**
 * One organization's balance item under concurrency, for `npm run bench` (bench/run.ts calls
 * contentionFigures). Every hold, release and capture of an organization's payments updates its one
 * balance item (`ORG#<org> / BALANCE#USDC`) inside a TransactWriteItems; concurrent transactions on
 * one item cancel each other (TransactionConflict) and `transactWrite` retries them with backoff.
 * Here payments' two ledger movements (the hold, written with the payment's item and its statement
 * line as the intake writes them, then the capture, written with the payment's conditional update as
 * the reconcile step writes it) run through the store's own `applyMovement`, without workflows, at
 * rising concurrency on one organization: payments per second, the TransactWriteItems calls per
 * payment and those cancelled (conflicts, each retried), the latency of a movement and the most
 * attempts one needed. docs/capacity.md reads these against DynamoDB's per-item limit and the
 * contract's rate limits.
 */
import { performance } from 'node:perf_hooks';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import pMap from 'p-map';
import { observeConsumedCapacity, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { applyMovement, readBalance, type TransactItem } from '#store/ledger.ts';
import { createTransactionItems, type TransactionRecord } from '#store/transactions.ts';
import type { LocalService } from '../lib/local/service.ts';
import { benchOrganization, percentiles, round } from './payments.ts';
import { reconciledTemplate } from './statements.ts';

export interface ContentionBenchOptions {
  service: LocalService;
  log: (message: string) => void;
}

const levels = (process.env.CONTENTION_BENCH_LEVELS ?? '1,4,16,64').split(',').map(Number);

export async function contentionFigures({ service, log }: ContentionBenchOptions) {
  const paymentsPerLevel = Number(process.env.CONTENTION_BENCH_PAYMENTS ?? 300);
  log('contention: one organization, one real payment as the template');
  const { organizationId, headers } = await benchOrganization(service, 'Bench Contention Org');
  const template = await reconciledTemplate(service, organizationId, headers);
  const send = BigInt(template.send);

  let transactCalls = 0;
  let transactCancelled = 0;
  const stopObserving = observeConsumedCapacity((record) => {
    if (record.command !== 'TransactWriteItems') return;
    transactCalls += 1;
    if (record.failed) transactCancelled += 1;
  });
  const previousCapacityFlag = process.env.COUNT_CAPACITY;
  process.env.COUNT_CAPACITY = '1';
  try {
    const before = await readBalance(organizationId);
    const runs = [];
    for (const concurrency of levels) {
      log(`contention: ${paymentsPerLevel} payments' hold and capture on one balance item, ${concurrency} at a time`);
      transactCalls = 0;
      transactCancelled = 0;
      const movementMs: number[] = [];
      let failed = 0;
      // How many other movements on the balance item were in flight when each one was sent.
      let inFlight = 0;
      let othersInFlight = 0;
      const started = performance.now();
      const timed = async (write: () => Promise<unknown>) => {
        const begun = performance.now();
        othersInFlight += inFlight;
        inFlight += 1;
        try {
          await write();
        } finally {
          inFlight -= 1;
        }
        movementMs.push(performance.now() - begun);
      };
      const move = async (index: number) => {
        const tx: TransactionRecord = { ...template, transactionId: `bench-contention-c${concurrency}-${index}`, state: 'PAID_OUT', createdAt: new Date().toISOString() };
        try {
          await timed(() => hold(tx, send));
          await timed(() => captureOf(tx, send));
        } catch {
          // Given up after the ledger's retries: counted, the run goes on.
          failed += 1;
        }
      };
      await pMap(Array.from({ length: paymentsPerLevel }, (_, index) => index), move, { concurrency });
      const seconds = (performance.now() - started) / 1000;
      runs.push({
        concurrency,
        payments: paymentsPerLevel,
        paymentsPerSecond: round(paymentsPerLevel / seconds, 1),
        balanceWritesPerSecond: round((2 * paymentsPerLevel) / seconds, 1),
        transactCallsPerPayment: round(transactCalls / paymentsPerLevel, 2),
        conflictsPerPayment: round(transactCancelled / paymentsPerLevel, 2),
        othersInFlightPerMovement: round(othersInFlight / (2 * paymentsPerLevel), 2),
        givenUp: failed,
        movementMs: percentiles(movementMs),
      });
    }
    const after = await readBalance(organizationId);
    const captured = send * BigInt(levels.length * paymentsPerLevel);
    return {
      settings: {
        levels,
        paymentsPerLevel,
        note: 'each payment: the hold (with its payment and statement-line Puts) and the capture (with the payment\'s conditional update), each one TransactWriteItems that also updates the balance item; no workflow, no outbox event',
        conflicts: 'DynamoDB Local runs table operations one at a time, so it never cancels a transaction for a conflict: here the cap is its throughput and the queue shows as latency; othersInFlightPerMovement is the overlap that DynamoDB would turn into TransactionConflict cancellations (docs/capacity.md)',
      },
      runs,
      ledgerExact: before.available - after.available === captured && before.held === after.held,
    };
  } finally {
    stopObserving();
    if (previousCapacityFlag === undefined) delete process.env.COUNT_CAPACITY;
    else process.env.COUNT_CAPACITY = previousCapacityFlag;
  }
}

/** The hold as the intake writes it: the balance, the journal entry, the payment and its statement line. */
async function hold(tx: TransactionRecord, send: bigint) {
  // Not the outbox Put: its event would start a workflow.
  const [payment, line] = createTransactionItems(tx);
  await applyMovement(
    {
      organizationId: tx.organizationId,
      entryId: `payment:${tx.transactionId}:hold`,
      operation: { kind: 'payment', id: tx.transactionId },
      legs: [{ account: 'available', amount: -send }, { account: 'held', amount: send }],
      memo: `hold for payment ${tx.transactionId}`,
    },
    [payment, line] as TransactItem[],
  );
}

/** The capture as the reconcile step writes it, with the payment's conditional move to RECONCILED. */
async function captureOf(tx: TransactionRecord, send: bigint) {
  const moved = new UpdateCommand({
    TableName: tableName(),
    Key: keys.transaction(tx.organizationId, tx.transactionId),
    UpdateExpression: 'SET #state = :to',
    ConditionExpression: '#state = :from',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':from': 'PAID_OUT', ':to': 'RECONCILED' },
  }).input;
  await applyMovement(
    {
      organizationId: tx.organizationId,
      entryId: `payment:${tx.transactionId}:capture`,
      operation: { kind: 'payment', id: tx.transactionId },
      legs: [{ account: 'held', amount: -send }, { account: `payout:${tx.provider}`, amount: send }],
      memo: `reconciled payment ${tx.transactionId}`,
    },
    [{ Update: moved }] as TransactItem[],
  );
}
