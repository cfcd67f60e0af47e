import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { needsPersonStates, terminalStates } from '#domain/paymentStates.ts';
import { dynamo, queryAll } from '#store/client.ts';
import { creditDeposit, listJournalEntries } from '#store/ledger.ts';
import { getBatch, readBatchCounts } from '#store/batches.ts';
import { getExecution } from '#store/executions.ts';
import { setRateLimits } from '#store/organizations.ts';
import { operationExecutionName } from '#operations/kit/start.ts';
import { crashableService } from '../support/crash.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { until } from '../support/eventually.ts';
import { fetchResending } from '../support/resend.ts';
import { useOwnDynamoDbLocal } from '../support/ownDynamoDb.ts';

/**
 * `npm start` killed (SIGKILL) while a batch is being started and paid, then started
 * again on the same store: every item ends exactly once, no item is paid twice, and the batch's
 * one funding transfer equals what its items released, captured and still hold. The batch's
 * execution history, redrive included, stays far inside Step Functions' 25,000 events.
 */
const service = crashableService('batchcrash', { PAYOUT_SETTLE_SECONDS: '1' });
const { tableName } = service;

// Tens of thousands of items written at full speed: a DynamoDB Local of its own (test/support/ownDynamoDb.ts).
useOwnDynamoDbLocal();

afterAll(async () => {
  await service.killAll();
});

/**
 * 150 items in `npm test` (CI's time is bounded); `npm run test:long` runs the contract's largest
 * batch, 1,000 (BATCH_CRASH_ITEMS).
 */
const itemCount = Number(process.env.BATCH_CRASH_ITEMS ?? 150);
const lastItemRef = `row-${String(itemCount - 1).padStart(4, '0')}`;
/**
 * One item in four paid, one in fifty paid and returned (band 92), the rest refused by the rail at
 * submit (band 91): every path that moves the batch's money, at a load the rest of the suite, which
 * shares this machine and its DynamoDB Local, can live beside.
 */
const amountOf = (index: number) => (index % 4 === 0 ? '20.00' : index % 50 === 1 ? '20.92' : '20.91');

describe(`a crash with a ${itemCount}-item batch being started and paid`, () => {
  it('ends every item exactly once after a restart, pays none twice, and the hold is accounted for to the unit', async () => {
    const port = await freePort();
    const t0 = Date.now();
    const phases: Record<string, number> = {};
    const first = await service.launch(port);
    phases.launched = Date.now() - t0;
    const auth = { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json' };
    const me = (await (await fetch(`${first.url}/me`, { headers: auth })).json()) as { id: string };
    service.readItsTable();
    await creditDeposit({ organizationId: me.id, depositId: `dep-${randomBytes(4).toString('hex')}`, amount: 30_000_000_000n, rail: 'wire', memo: 'batch crash test' });
    await setRateLimits(me.id, { burst: 10_000, perSecond: 1_000 });

    const mx = findCorridor('USDC', 'MXN', 'MX')!;
    const beneficiary = sampleBeneficiary(mx);
    const batchId = `crash-batch-${randomBytes(4).toString('hex')}`;
    const items = Array.from({ length: itemCount }, (_, index) => ({
      itemRef: `row-${String(index).padStart(4, '0')}`, sendAmount: { amount: amountOf(index), currency: 'USDC' }, recipientReference: `payroll ${index}`, beneficiary,
    }));
    const answer = await fetchResending(`${first.url}/batches`, {
      method: 'POST', headers: auth, body: JSON.stringify({ batchId, corridor: { to: 'MXN', destinationCountry: 'MX' }, provider: mx.routes[0]!.provider, items }),
    });
    expect(answer.status, await answer.clone().text()).toBe(202);
    phases.accepted = Date.now() - t0;

    // Kill once the workflow is part-way through starting the items (a tenth of them).
    await until(() => getBatch(me.id, batchId), (batch) => (batch?.startedThrough ?? 0) >= itemCount / 10, { what: 'the batch to start its first items', timeoutMs: 120_000, intervalMs: 20 });
    await service.killHard(first.child);
    phases.killed = Date.now() - t0;
    const atKill = await readBatchCounts((await getBatch(me.id, batchId))!);
    const ended = (counts: Partial<Record<string, number>>) =>
      Object.entries(counts).reduce((sum, [state, count]) => sum + ([...terminalStates, ...needsPersonStates].includes(state as never) ? count! : 0), 0);
    expect(ended(atKill), `some items had not ended at the kill: ${JSON.stringify(atKill)}`).toBeLessThan(itemCount);

    const second = await service.launch(port);
    phases.relaunched = Date.now() - t0;
    const counts = await until(async () => readBatchCounts((await getBatch(me.id, batchId))!), (now) => ended(now) === itemCount, {
      what: `every item to end after the restart (at kill: ${JSON.stringify(atKill)})`, timeoutMs: 120_000, intervalMs: 500,
    });
    phases.allEnded = Date.now() - t0;
    await until(() => getBatch(me.id, batchId), (batch) => batch?.state === 'COMPLETED', { what: 'the batch workflow to see it complete', timeoutMs: 60_000 });
    // The batch record says COMPLETED from the workflow's last task; the runner writes the execution's
    // history just after. Killed between the two (seen once under load), the history read below is the
    // start alone: wait for the execution itself to have ended.
    await until(() => getExecution(operationExecutionName('batch', me.id, batchId), 'batch'), (execution) => execution?.status !== undefined && execution.status !== 'RUNNING', {
      what: 'the batch execution to be recorded as ended', timeoutMs: 60_000,
    });
    await service.killHard(second.child);

    // Every item is exactly one payment of this batch, counted once.
    const payments = await queryAll({
      TableName: tableName, KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `ORG#${me.id}`, ':prefix': `TX#${batchId}:` }, ConsistentRead: true,
    });
    expect(payments).toHaveLength(itemCount);
    const byState = new Map<string, number>();
    for (const payment of payments) byState.set(payment.state as string, (byState.get(payment.state as string) ?? 0) + 1);
    expect(Object.fromEntries(byState)).toEqual(counts);
    expect(counts.FAILED).toBe(items.filter((_, index) => amountOf(index) === '20.91').length);
    expect(counts.REFUNDED).toBe(items.filter((_, index) => amountOf(index) === '20.92').length);

    // One payout per item at the provider (none for those the rail refused at submit): none paid twice.
    const payouts = await Promise.all(
      payments.map(async (payment) => {
        const { Items } = await dynamo().send(new QueryCommand({
          TableName: tableName, KeyConditionExpression: 'pk = :pk AND sk = :sk', ExpressionAttributeValues: { ':pk': `SIMPAYOUT#${me.id}:${payment.transactionId as string}`, ':sk': 'SIMPAYOUT' },
        }));
        return Items?.length ?? 0;
      }),
    );
    expect(payouts.filter((count) => count > 1)).toEqual([]);
    expect(payouts.filter((count) => count === 1)).toHaveLength(itemCount - counts.FAILED!);

    // The one funding transfer = released + captured + still held, to the unit.
    const entries = await listJournalEntries(me.id);
    const heldLeg = (entry: (typeof entries)[number]) => entry.legs.find((leg) => leg.account === 'held')?.amount ?? 0n;
    const hold = entries.filter((entry) => entry.entryId === `batch:${batchId}:hold`);
    expect(hold).toHaveLength(1);
    const total = items.reduce((sum, item) => sum + BigInt(item.sendAmount.amount.replace('.', '')) * 10_000n, 0n);
    expect(heldLeg(hold[0]!)).toBe(total);
    const ofItems = entries.filter((entry) => entry.entryId.startsWith(`payment:${batchId}:`) || entry.entryId.startsWith(`batch:${batchId}:item:`));
    const released = ofItems.filter((entry) => entry.entryId.endsWith(':release')).reduce((sum, entry) => sum - heldLeg(entry), 0n);
    const captured = ofItems.filter((entry) => entry.entryId.endsWith(':capture')).reduce((sum, entry) => sum - heldLeg(entry), 0n);
    const stillHeld = payments.filter((payment) => needsPersonStates.includes(payment.state as never)).reduce((sum, payment) => sum + BigInt(payment.send as string), 0n);
    expect(released + captured + stillHeld).toBe(total);
    expect(new Set(ofItems.map((entry) => entry.entryId)).size).toBe(ofItems.length);
    await expectLedgerInvariant(me.id);

    // The batch's own history, the redrive included: far inside 25,000 events, and it names the items.
    const execution = await getExecution(operationExecutionName('batch', me.id, batchId), 'batch');
    const events = (execution?.events?.length ?? 0) + (execution?.droppedEvents ?? 0);
    expect(events).toBeGreaterThan(10);
    expect(events).toBeLessThan(1_000);
    const reports = (execution?.events ?? []).flatMap((event) => (event.type === 'TaskStateExited' ? [event.stateExitedEventDetails?.output ?? ''] : []));
    expect(reports.some((output) => output.includes(lastItemRef))).toBe(true);
    phases.checked = Date.now() - t0;
    console.log(JSON.stringify({ batchHistoryEvents: events, drives: execution?.drives, atKill, phasesMs: phases }));
  }, 420_000);
});
