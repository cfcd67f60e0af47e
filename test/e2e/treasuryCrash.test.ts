import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { onRampDepositId } from '#operations/onRamp/progress.ts';
import { dynamo } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { depositEntryId, listJournalEntries, readBalance } from '#store/ledger.ts';
import { crashableService } from '../support/crash.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { until } from '../support/eventually.ts';

/**
 * The "must hold" for the other two money movers with an on-chain leg: `npm start` killed
 * (SIGKILL) while wire deposits are being delivered to the home wallet and off-ramps are at their
 * provider, then started again on the same store. Every one reaches its end; each delivered
 * deposit is credited once with the transaction the issuer made once; each paid off-ramp is
 * captured once; the balance is exactly what the ends imply. (Withdrawals: withdrawalCrash.test.ts.)
 */
// Deliveries stay unconfirmed and off-ramp payouts processing for a while, so the kill lands mid-way.
const service = crashableService('trcrash', { ONRAMP_CONFIRM_SECONDS: '2', PAYOUT_SETTLE_SECONDS: '2' });
const { tableName } = service;

afterAll(async () => {
  await service.killAll();
});

const ended = new Set(['DELIVERED', 'REFUNDED', 'FAILED', 'EXPIRED', 'IN_DOUBT', 'PAID']);

describe('a crash with deposits and off-ramps in flight', () => {
  it('finishes every one after a restart, crediting and paying each once', async () => {
    const port = await freePort();
    const first = await service.launch(port);
    const auth = { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${first.url}${path}`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };
    const me = (await (await fetch(`${first.url}/me`, { headers: auth })).json()) as { id: string };

    // Wires quoting the reference (each starts a deposit by itself); one in the refund band, one in doubt.
    const wires = ['1000.00', '1100.00', '1200.00', '1300.92', '1400.94', '1500.00'];
    const deposits: string[] = [];
    for (const amount of wires) {
      const wired = await post('/treasury/onramps/simulate-wire', { amount: { amount, currency: 'USD' } });
      expect(wired.status, JSON.stringify(wired.body)).toBe(202);
      deposits.push(wired.body.onRampId);
    }
    const payee = await post('/treasury/beneficiaries', sampleOffRampBeneficiaries[0]);
    expect(payee.status).toBe(201);
    const offRampAmounts = ['100.00', '110.00', '120.92', '130.00', '140.00'];
    const offRamps = offRampAmounts.map((_, index) => `trcrash-ofr-${index}-${randomBytes(4).toString('hex')}`);
    for (const [index, amount] of offRampAmounts.entries()) {
      const sent = await post('/treasury/offramp', { idempotencyKey: offRamps[index], amount: { amount, currency: 'USDC' }, beneficiaryId: payee.body.id });
      expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    }
    // Let the deliveries and payouts get under way (made, not yet confirmed), then cut the power.
    service.readItsTable();
    const statusOf = async (kind: 'onramp' | 'offramp', id: string) =>
      (await dynamo().send(new GetCommand({ TableName: tableName, Key: keys.operation(me.id, kind, id), ConsistentRead: true }))).Item as Record<string, any>;
    const statuses = async () => [...(await Promise.all(deposits.map((id) => statusOf('onramp', id)))), ...(await Promise.all(offRamps.map((id) => statusOf('offramp', id))))].map((item) => item.status as string);
    await until(statuses, (now) => now.some((status) => ['DELIVERING', 'CREDITED', 'CONVERTING', 'SETTLING', 'PAYING'].includes(status)), {
      what: 'a delivery made or an off-ramp at its provider, not yet confirmed', intervalMs: 25,
    });
    await service.killHard(first.child);
    const atKill = await statuses();
    expect(atKill.some((status) => !ended.has(status)), `caught mid-way: ${JSON.stringify(atKill)}`).toBe(true);

    const second = await service.launch(port);
    await until(statuses, (now) => now.every((status) => ended.has(status)), {
      what: `every deposit and off-ramp ended after the restart (at kill: ${JSON.stringify(atKill)})`, timeoutMs: 90_000, intervalMs: 250,
    });
    await service.killHard(second.child);

    const journal = await listJournalEntries(me.id);
    let credited = 0n;
    for (const [index, id] of deposits.entries()) {
      const record = await statusOf('onramp', id);
      const expected = wires[index]!.endsWith('.92') ? 'REFUNDED' : wires[index]!.endsWith('.94') ? 'IN_DOUBT' : 'DELIVERED';
      expect(record.status, id).toBe(expected);
      const credits = journal.filter((entry) => entry.entryId === depositEntryId(onRampDepositId(id)));
      expect(credits.length, `credits of ${id}`).toBe(expected === 'DELIVERED' ? 1 : 0);
      if (expected === 'DELIVERED') {
        const delivery = (await dynamo().send(new GetCommand({ TableName: tableName, Key: keys.simulatedOnRamp(`${me.id}:${id}`, 'delivery'), ConsistentRead: true }))).Item;
        expect(record.txHash, `the transaction the issuer made for ${id}`).toBe(delivery?.txHash);
        credited += BigInt(record.net);
      }
    }
    let paidOut = 0n;
    for (const [index, id] of offRamps.entries()) {
      const record = await statusOf('offramp', id);
      const expected = offRampAmounts[index]!.endsWith('.92') ? 'REFUNDED' : 'PAID';
      expect(record.status, id).toBe(expected);
      expect(journal.filter((entry) => entry.entryId === `offramp:${id}:capture`).length, `captures of ${id}`).toBe(expected === 'PAID' ? 1 : 0);
      expect(journal.filter((entry) => entry.entryId === `offramp:${id}:hold`).length, `holds of ${id}`).toBe(1);
      if (expected === 'PAID') paidOut += BigInt(record.amount);
    }
    // The demo organization opened with 10,000 USDC.
    const balance = await readBalance(me.id);
    expect(balance.available).toBe(10_000_000_000n + credited - paidOut);
    expect(balance.held).toBe(0n);
    await expectLedgerInvariant(me.id);
  }, 300_000);
});
