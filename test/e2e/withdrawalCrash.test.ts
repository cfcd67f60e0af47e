import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { withdrawalNeedsPersonStates, withdrawalTerminalStates } from '#operations/withdrawal/view.ts';
import { dynamo } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { listJournalEntries, readBalance } from '#store/ledger.ts';
import { crashableService } from '../support/crash.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { until } from '../support/eventually.ts';
import { fetchResending } from '../support/resend.ts';

/**
 * `npm start` killed (SIGKILL: no shutdown code runs) while withdrawals are in flight, then
 * started again on the same store: every withdrawal reaches its end, and no on-chain send is made
 * twice (one transfer per withdrawal in the custodian simulator's book, one send in the ledger).
 */
// Sends stay unconfirmed for a while, so the kill lands mid-way.
const service = crashableService('wdcrash', { CHAIN_CONFIRM_SECONDS: '2' });
const { tableName } = service;
const settled = [...withdrawalTerminalStates, ...withdrawalNeedsPersonStates] as string[];

afterAll(async () => {
  await service.killAll();
});

describe('a crash with withdrawals in flight', () => {
  it('finishes every withdrawal after a restart and sends none twice', async () => {
    const port = await freePort();
    const first = await service.launch(port);
    const auth = { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json' };
    const me = (await (await fetch(`${first.url}/me`, { headers: auth })).json()) as { id: string };
    // Plain sends on the home network and across, one that retries, one cancelled, one in doubt.
    const plan = [
      ['10.00', 'base'], ['11.00', 'polygon'], ['12.00', 'base'], ['13.00', 'ethereum'], ['14.00', 'base'],
      ['20.93', 'base'], ['21.92', 'base'], ['22.94', 'base'], ['15.00', 'polygon'], ['16.00', 'base'],
    ] as const;
    const ids = plan.map((_, index) => `wdcrash-${index}-${randomBytes(4).toString('hex')}`);
    const answers = await Promise.all(
      plan.map(([amount, chain], index) =>
        fetchResending(`${first.url}/treasury/withdrawals`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ idempotencyKey: ids[index], amount: { amount, currency: 'USDC' }, chain, toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(plan.map(() => 202));
    // Let the sends go out (accepted, not yet confirmed), then cut the power.
    service.readItsTable();
    const stateOf = async (id: string) =>
      (await dynamo().send(new GetCommand({ TableName: tableName, Key: keys.operation(me.id, 'withdrawal', id), ConsistentRead: true }))).Item!.status as string;
    await until(() => Promise.all(ids.map(stateOf)), (states) => states.includes('SENDING'), { what: 'a send accepted and not yet confirmed', intervalMs: 25 });
    await service.killHard(first.child);
    const atKill = await Promise.all(ids.map(stateOf));
    // Caught with sends accepted by the custodian and not yet confirmed: the window a re-drive must not send again in.
    expect(atKill, `caught mid-send: ${JSON.stringify(atKill)}`).toContain('SENDING');

    const second = await service.launch(port);
    const finals = await until(() => Promise.all(ids.map(stateOf)), (states) => states.every((state) => settled.includes(state)), {
      what: `every withdrawal ended after the restart (at kill: ${JSON.stringify(atKill)})`, timeoutMs: 60_000, intervalMs: 250,
    });
    await service.killHard(second.child);

    expect(finals).toEqual(plan.map(([amount]) => (amount.endsWith('.92') ? 'RETURNED' : amount.endsWith('.94') ? 'IN_DOUBT' : 'SENT')));
    const journal = await listJournalEntries(me.id);
    for (const [index, id] of ids.entries()) {
      const { Items } = await dynamo().send(new QueryCommand({
        TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `SIMCHAIN#${me.id}:${id}` },
      }));
      const transfers = (Items ?? []).filter((item) => item.entity === 'simulatedChainTransfer');
      expect(transfers.length, `transfers of ${id}`).toBe(finals[index] === 'IN_DOUBT' ? 0 : 1);
      expect(journal.filter((entry) => entry.entryId === `withdrawal:${id}:send`).length, `sends of ${id} in the ledger`).toBe(finals[index] === 'SENT' ? 1 : 0);
      if (finals[index] === 'SENT') {
        const record = (await dynamo().send(new GetCommand({ TableName: tableName, Key: keys.operation(me.id, 'withdrawal', id), ConsistentRead: true }))).Item!;
        expect(record.txHash).toBe(transfers[0]!.txHash);
      }
    }
    const spent = plan.reduce((sum, [amount], index) => {
      const minor = BigInt(amount.replace('.', '')) * 10_000n;
      return finals[index] === 'SENT' || finals[index] === 'IN_DOUBT' ? sum + minor : sum;
    }, 0n);
    const balance = await readBalance(me.id);
    expect(balance.available).toBe(10_000_000_000n - spent);
    await expectLedgerInvariant(me.id);
  }, 300_000);
});
