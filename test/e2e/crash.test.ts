import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { QueryCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { needsPersonStates, terminalStates } from '#domain/paymentStates.ts';
import { dynamo } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { readBalance } from '#store/ledger.ts';
import { crashableService } from '../support/crash.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { until } from '../support/eventually.ts';
import { useOwnDynamoDbLocal } from '../support/ownDynamoDb.ts';

/**
 * `npm start` killed (SIGKILL: no shutdown code runs) while payments are in flight, then started
 * again on the same store: every payment reaches a terminal or needs-a-person state, and none is
 * paid twice.
 */
// Payouts stay in flight for a while, so the kill lands mid-way.
const service = crashableService('crash', { PAYOUT_SETTLE_SECONDS: '2' });
const { tableName } = service;
// A restart re-drives every execution at once: a DynamoDB Local of its own (test/support/ownDynamoDb.ts).
useOwnDynamoDbLocal();

afterAll(async () => {
  await service.killAll();
});

describe('a crash with payments in flight', () => {
  it('loses nothing and pays nothing twice after a restart', async () => {
    const port = await freePort();
    const first = await service.launch(port);
    const auth = { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json' };
    const me = await (await fetch(`${first.url}/me`, { headers: auth })).json() as { id: string };
    const beneficiary = sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!);
    // Normal payouts, one that retries, one that comes back, one that is in doubt.
    const amounts = ['10.00', '11.00', '12.00', '13.00', '14.00', '15.00', '20.93', '21.92', '22.94', '16.00', '17.00', '18.00'];
    const ids = amounts.map((_, index) => `crash-${index}-${randomBytes(4).toString('hex')}`);
    const answers = await Promise.all(
      amounts.map((amount, index) =>
        fetch(`${first.url}/transactions`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({
            idempotencyKey: ids[index], corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount, currency: 'USDC' },
            recipientReference: `crash ${index}`, beneficiary,
          }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(amounts.map(() => 202));

    await service.killHard(first.child);

    // Read the store directly while nothing runs: some payments must be caught mid-way.
    service.readItsTable();
    const stateOf = async (id: string) =>
      (await dynamo().send(new GetCommand({ TableName: tableName, Key: keys.transaction(me.id, id), ConsistentRead: true }))).Item!.state as string;
    const atKill = await Promise.all(ids.map(stateOf));
    expect(atKill.some((state) => ![...terminalStates, ...needsPersonStates].includes(state as never))).toBe(true);

    const second = await service.launch(port);
    const finals = await until(() => Promise.all(ids.map(stateOf)), (states) => states.every((state) => [...terminalStates, ...needsPersonStates].includes(state as never)), {
      what: `every payment ended after the restart (at kill: ${JSON.stringify(atKill)})`, timeoutMs: 60_000, intervalMs: 250,
    });
    await service.killHard(second.child);

    expect(finals[6]).toBe('RECONCILED');
    expect(finals[7]).toBe('REFUNDED');
    expect(finals[8]).toBe('IN_DOUBT');
    // One payout per payment at the provider, and the ledger moved each payment's money once.
    for (const [index, id] of ids.entries()) {
      const { Items } = await dynamo().send(new QueryCommand({
        TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `SIMPAYOUT#${me.id}:${id}` },
      }));
      const payouts = (Items ?? []).filter((item) => item.entity === 'simulatedPayout' && item.sk === 'SIMPAYOUT');
      expect(payouts.length, `payouts of ${id}`).toBe(finals[index] === 'IN_DOUBT' ? 0 : 1);
    }
    const spent = amounts.reduce((sum, amount, index) => {
      const minor = BigInt(amount.replace('.', '')) * 10_000n;
      return finals[index] === 'RECONCILED' || finals[index] === 'IN_DOUBT' ? sum + minor : sum;
    }, 0n);
    const balance = await readBalance(me.id);
    expect(balance.available).toBe(10_000_000_000n - spent);
    await expectLedgerInvariant(me.id);
  }, 300_000);
});
