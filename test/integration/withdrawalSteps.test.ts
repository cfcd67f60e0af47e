import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pollWithdrawal, pullFunds, returnWithdrawal, sendWithdrawal } from '#operations/withdrawal/progress.ts';
import type { WithdrawalRecord } from '#operations/withdrawal/view.ts';
import { ChainSendUnanswered, useChainSender, type ChainSendRequest } from '#providers/chain.ts';
import { SimulatedChain } from '#simulators/chain.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { creditDeposit, listJournalEntries, readBalance } from '#store/ledger.ts';
import { createOperation, getOperation } from '#store/operations.ts';
import { blockedAddresses } from '#domain/screening.ts';
import { useFreshTable } from '../support/table.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';

/**
 * The withdrawal's steps against DynamoDB Local, each delivered twice (in turn and at once), as
 * Lambda and the local runner may deliver them: one hold, one send at the custodian, one capture.
 * The custodian is the simulator, wrapped at its port only to count the sends it is asked for.
 */
let sequence = 0;

class CountingChain extends SimulatedChain {
  sends = 0;
  override async send(request: ChainSendRequest) {
    this.sends += 1;
    return super.send(request);
  }
}

async function newWithdrawal(amount: bigint, options: { network?: string; fund?: bigint; toAddress?: string } = {}) {
  sequence += 1;
  const organizationId = `org_steps_${process.pid}_${sequence}`;
  const id = `wd-steps-${sequence}`;
  await creditDeposit({ organizationId, depositId: `dep-${sequence}`, amount: options.fund ?? 1_000_000_000n, rail: 'wire', memo: 'test' });
  const at = new Date().toISOString();
  const record: WithdrawalRecord = {
    organizationId, kind: 'withdrawal', id, status: 'INITIATED', requestHash: 'h', timeline: [{ status: 'INITIATED', at }], createdAt: at, updatedAt: at,
    amount: amount.toString(), network: options.network ?? 'base', homeNetwork: 'base', toAddress: options.toAddress ?? '0x52908400098527886e0f7030069857d2e4169ee7',
    crossingFee: '0', gasFee: '15000', fee: '15000', net: (amount - 15_000n).toString(), sendAttempts: 0, transferId: null, txHash: null,
  };
  await createOperation(record);
  return { organizationId, withdrawalId: id };
}

const load = async (ref: { organizationId: string; withdrawalId: string }) => (await getOperation<WithdrawalRecord>(ref.organizationId, 'withdrawal', ref.withdrawalId))!;

let chain: CountingChain;

beforeAll(async () => {
  await useFreshTable('wdsteps');
});

afterEach(() => useChainSender(undefined));

function installChain() {
  chain = new CountingChain();
  useChainSender(chain);
}

describe('withdrawal steps delivered twice', () => {
  it('in turn: one hold, one send, one capture', async () => {
    installChain();
    const ref = await newWithdrawal(50_000_000n);
    expect((await pullFunds(ref)).outcome).toBe('held');
    expect((await pullFunds(ref)).outcome).toBe('held');
    expect((await readBalance(ref.organizationId)).held).toBe(50_000_000n);

    expect((await sendWithdrawal(ref)).outcome).toBe('sending');
    expect((await sendWithdrawal(ref)).outcome).toBe('sending');
    expect(chain.sends).toBe(1);

    expect((await pollWithdrawal(ref)).outcome).toBe('done');
    expect((await pollWithdrawal(ref)).outcome).toBe('done');
    expect((await sendWithdrawal(ref)).outcome).toBe('done');
    expect(chain.sends).toBe(1);
    const record = await load(ref);
    expect(record.status).toBe('SENT');
    expect(record.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(record.timeline.map((entry) => entry.status)).toEqual(['INITIATED', 'PULLING', 'HELD', 'SENDING', 'SENT']);
    const entries = (await listJournalEntries(ref.organizationId)).map((entry) => entry.entryId).filter((id) => id.startsWith('withdrawal:'));
    expect(entries.sort()).toEqual([`withdrawal:${ref.withdrawalId}:hold`, `withdrawal:${ref.withdrawalId}:send`]);
    const balance = await expectLedgerInvariant(ref.organizationId);
    expect(balance.available).toBe(950_000_000n);
    expect(balance.held).toBe(0n);
  });

  it('at once: the custodian makes one transfer and the ledger moves once', async () => {
    installChain();
    const ref = await newWithdrawal(60_000_000n);
    await Promise.all([pullFunds(ref), pullFunds(ref), pullFunds(ref)]);
    expect((await readBalance(ref.organizationId)).held).toBe(60_000_000n);
    const outcomes = await Promise.all([sendWithdrawal(ref), sendWithdrawal(ref), sendWithdrawal(ref)]);
    expect(outcomes.map((result) => result.outcome)).toEqual(['sending', 'sending', 'sending']);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.simulatedChainTransfer(`${ref.organizationId}:${ref.withdrawalId}`), ConsistentRead: true }));
    expect(Item?.entity).toBe('simulatedChainTransfer');
    await Promise.all([pollWithdrawal(ref), pollWithdrawal(ref)]);
    const record = await load(ref);
    expect(record.status).toBe('SENT');
    expect(record.transferId).toBe(Item!.transferId);
    expect(record.txHash).toBe(Item!.txHash);
    const sends = (await listJournalEntries(ref.organizationId)).filter((entry) => entry.entryId.endsWith(':send'));
    expect(sends).toHaveLength(1);
    await expectLedgerInvariant(ref.organizationId);
  });

  it('an unanswered send parks IN_DOUBT and is never sent again', async () => {
    let sends = 0;
    useChainSender({
      name: 'unanswering',
      send: async () => {
        sends += 1;
        throw new ChainSendUnanswered('timed out');
      },
      sendStatus: async () => ({ status: 'unknown' }),
      moveHome: async () => undefined,
      moveHomeStatus: async () => ({ status: 'unknown' }),
    });
    const ref = await newWithdrawal(70_000_000n);
    await pullFunds(ref);
    expect((await sendWithdrawal(ref)).outcome).toBe('done');
    expect((await sendWithdrawal(ref)).outcome).toBe('done');
    expect((await pollWithdrawal(ref)).outcome).toBe('done');
    expect(sends).toBe(1);
    expect((await load(ref)).status).toBe('IN_DOUBT');
    expect((await readBalance(ref.organizationId)).held).toBe(70_000_000n);
    await expectLedgerInvariant(ref.organizationId);
  });

  it('a return delivered twice releases the hold once', async () => {
    installChain();
    const ref = await newWithdrawal(80_920_000n);
    await pullFunds(ref);
    await sendWithdrawal(ref);
    expect((await pollWithdrawal(ref)).outcome).toBe('returning');
    await Promise.all([returnWithdrawal(ref), returnWithdrawal(ref)]);
    expect((await load(ref)).status).toBe('RETURNED');
    const balance = await expectLedgerInvariant(ref.organizationId);
    expect(balance.available).toBe(1_000_000_000n);
    expect(balance.held).toBe(0n);
  });

  it('a hold that does not fit fails with nothing moved, however often it is delivered', async () => {
    installChain();
    const ref = await newWithdrawal(90_000_000n, { fund: 10_000_000n });
    await Promise.all([pullFunds(ref), pullFunds(ref)]);
    const record = await load(ref);
    expect(record.status).toBe('FAILED');
    expect(record.failure).toBe('insufficient_funds');
    expect(await sendWithdrawal(ref)).toEqual({ outcome: 'done' });
    expect(chain.sends).toBe(0);
    const balance = await expectLedgerInvariant(ref.organizationId);
    expect(balance.available).toBe(10_000_000n);
  });

  it('a destination blocked since acceptance fails compliance_hold before the hold, nothing moved or sent, the record masked', async () => {
    installChain();
    // Accepted while the list did not name it: the record as the intake wrote it then.
    const ref = await newWithdrawal(90_000_000n, { toAddress: blockedAddresses[2]! });
    await Promise.all([pullFunds(ref), pullFunds(ref)]);
    const record = await load(ref);
    expect(record.status).toBe('FAILED');
    expect(record.failure).toBe('compliance_hold');
    expect(await sendWithdrawal(ref)).toEqual({ outcome: 'done' });
    expect(chain.sends).toBe(0);
    expect((await listJournalEntries(ref.organizationId)).filter((entry) => entry.entryId.startsWith('withdrawal:'))).toEqual([]);
    const balance = await expectLedgerInvariant(ref.organizationId);
    expect(balance.available).toBe(1_000_000_000n);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.complianceRecord(ref.organizationId, ref.withdrawalId, 'withdrawal'), ConsistentRead: true }));
    expect(Item).toMatchObject({ decision: 'held', operation: 'withdrawal', network: 'base', destinationAddress: `${'*'.repeat(38)}${blockedAddresses[2]!.slice(-4)}` });
  });
});
