import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { withdrawalNeedsPersonStates, withdrawalTerminalStates } from '#core/withdrawals.ts';
import { reloadConfig } from '#platform/config.ts';
import { dynamo, resetDynamoClient } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { listJournalEntries, readBalance } from '#store/ledger.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';

/**
 * `npm start` killed (SIGKILL: no shutdown code runs) while withdrawals are in flight, then
 * started again on the same store: every withdrawal reaches its end, and no on-chain send is made
 * twice (one transfer per withdrawal in the custodian simulator's book, one send in the ledger).
 */
const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const tableName = `wdcrash-${randomBytes(6).toString('hex')}`;
const children: ChildProcess[] = [];
const settled = [...withdrawalTerminalStates, ...withdrawalNeedsPersonStates] as string[];

async function launch(port: number): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  const child = spawn(tsx, ['bin/local.ts'], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
      TABLE_NAME: tableName,
      LOG_LEVEL: 'WARN',
      // Sends stay unconfirmed for a while, so the kill lands mid-way; the dead process's leases are short.
      CHAIN_CONFIRM_SECONDS: '2',
      WORKFLOW_LEASE_SECONDS: '2',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group: tsx runs the service in a child process, and the kill must take both.
    detached: true,
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 45_000;
  while (!/Demo API key:\s+(\S+)/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url: /Base URL:\s+(\S+)/.exec(output)![1]!, apiKey: /Demo API key:\s+(\S+)/.exec(output)![1]! };
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    // Already gone.
  }
  if (child.exitCode === null && child.signalCode === null) await exited;
}

afterAll(async () => {
  for (const child of children) await killHard(child);
});

describe('a crash with withdrawals in flight', () => {
  it('finishes every withdrawal after a restart and sends none twice', async () => {
    const port = await freePort();
    const first = await launch(port);
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
        fetch(`${first.url}/treasury/withdrawals`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ idempotencyKey: ids[index], amount: { amount, currency: 'USDC' }, chain, toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' }),
        }),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(plan.map(() => 202));
    // Let the sends go out (accepted, not yet confirmed), then cut the power.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    await killHard(first.child);

    process.env.TABLE_NAME = tableName;
    reloadConfig();
    resetDynamoClient();
    const stateOf = async (id: string) =>
      (await dynamo().send(new GetCommand({ TableName: tableName, Key: keys.operation(me.id, 'withdrawal', id), ConsistentRead: true }))).Item!.status as string;
    const atKill = await Promise.all(ids.map(stateOf));
    // Caught with sends accepted by the custodian and not yet confirmed: the window a re-drive must not send again in.
    expect(atKill, `caught mid-send: ${JSON.stringify(atKill)}`).toContain('SENDING');

    const second = await launch(port);
    const deadline = Date.now() + 60_000;
    let finals: string[] = [];
    for (;;) {
      finals = await Promise.all(ids.map(stateOf));
      if (finals.every((state) => settled.includes(state))) break;
      if (Date.now() > deadline) throw new Error(`still in flight after the restart: ${JSON.stringify(finals)} (at kill: ${JSON.stringify(atKill)})`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await killHard(second.child);

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
  }, 150_000);
});
