import { randomBytes } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import {
  claimantOf, createOperation, getOperation, listOperations, type OperationBase,
} from '#store/operations.ts';
import { moveStoredOperation } from '#operations/kit/storedOperation.ts';
import { creditDeposit, InsufficientFunds, readBalance, type LedgerMovement } from '#store/ledger.ts';
import { dynamo, tableName } from '#store/client.ts';
import { useFreshTable } from '../support/table.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';

/**
 * The shared store of treasury operations, against DynamoDB Local: ids are global (another
 * organization's id is told apart, never returned), a status moves once however often the step
 * that moves it is delivered, and the money moves with the status or not at all.
 */
interface Sample extends OperationBase {
  kind: 'withdrawal';
  amount: string;
  txHash?: string;
}

const newOrg = () => `org_ops_${randomBytes(5).toString('hex')}`;
const newId = () => `op-${randomBytes(6).toString('hex')}`;

function sample(organizationId: string, id = newId(), amount = '1000000'): Sample {
  const at = new Date().toISOString();
  return {
    organizationId, kind: 'withdrawal', id, status: 'INITIATED', requestHash: 'hash-a', amount,
    timeline: [{ status: 'INITIATED', at }], createdAt: at, updatedAt: at,
  };
}

function hold(record: Sample): LedgerMovement {
  const amount = BigInt(record.amount);
  return {
    organizationId: record.organizationId,
    entryId: `withdrawal:${record.id}:hold`,
    operation: { kind: 'withdrawal', id: record.id },
    legs: [{ account: 'available', amount: -amount }, { account: 'held', amount }],
    memo: `hold for ${record.id}`,
  };
}

beforeAll(async () => {
  await useFreshTable('operations');
});

describe('creating an operation', () => {
  it('creates once; the same id again answers the stored record; another organization is told apart and shown nothing', async () => {
    const org = newOrg();
    const first = sample(org);
    expect(await createOperation(first)).toEqual({ created: first });

    const again = await createOperation({ ...first, requestHash: 'hash-b', amount: '5' });
    expect(again).toEqual({ existing: first });

    const other = await createOperation(sample(newOrg(), first.id));
    expect(other).toEqual({ otherOrganization: true });
    expect(await claimantOf('withdrawal', first.id)).toBe(org);
    expect(await getOperation(newOrg(), 'withdrawal', first.id)).toBeUndefined();
  });

  it('two racing creates of one id: one is created, the other reads it back', async () => {
    const org = newOrg();
    const id = newId();
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => createOperation(sample(org, id))));
    expect(outcomes.filter((outcome) => 'created' in outcome)).toHaveLength(1);
    expect(outcomes.filter((outcome) => 'existing' in outcome)).toHaveLength(5);
  });

  it('writes its event in the same transaction', async () => {
    const record = sample(newOrg());
    await createOperation(record, { event: { type: 'test.created', data: { id: record.id } } });
    const { Items } = await dynamo().send(
      new QueryCommand({ TableName: tableName(), IndexName: 'gsi1v2', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': `ORG#${record.organizationId}#withdrawal` } }),
    );
    expect(Items).toHaveLength(1);
  });
});

describe('moving an operation', () => {
  it('moves from the expected status once: a second delivery of the same step finds it moved and changes nothing', async () => {
    const record = sample(newOrg());
    await createOperation(record);
    const moved = await moveStoredOperation<Sample>(record, { to: 'SENT', detail: 'sent', set: { txHash: '0xabc' } });
    expect(moved?.status).toBe('SENT');
    expect(await moveStoredOperation<Sample>(record, { to: 'SENT', detail: 'sent', set: { txHash: '0xdef' } })).toBeUndefined();
    const stored = await getOperation<Sample>(record.organizationId, 'withdrawal', record.id);
    expect(stored?.txHash).toBe('0xabc');
    expect(stored?.timeline.map((entry) => entry.status)).toEqual(['INITIATED', 'SENT']);
  });

  it('the money moves with the status, once, and a movement that does not fit moves neither', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: newId(), amount: 1_500_000n, rail: 'wire', memo: 'funding' });
    const first = sample(org);
    const second = sample(org);
    await createOperation(first);
    await createOperation(second);

    expect((await moveStoredOperation<Sample>(first, { to: 'HELD', ledger: hold(first) }))?.status).toBe('HELD');
    // Delivered again: the entry exists, the status moved; nothing is held twice.
    expect(await moveStoredOperation<Sample>(first, { to: 'HELD', ledger: hold(first) })).toBeUndefined();
    await expect(moveStoredOperation<Sample>(second, { to: 'HELD', ledger: hold(second) })).rejects.toBeInstanceOf(InsufficientFunds);

    expect((await getOperation<Sample>(org, 'withdrawal', second.id))?.status).toBe('INITIATED');
    const balance = await readBalance(org);
    expect(balance.available).toBe(500_000n);
    expect(balance.held).toBe(1_000_000n);
    await expectLedgerInvariant(org);
  });
});

describe('listing operations', () => {
  it('pages newest first with cursors bound to the list and the organization', async () => {
    const org = newOrg();
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const record = sample(org, `op-${index}-${randomBytes(3).toString('hex')}`);
      record.createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString();
      ids.push(record.id);
      await createOperation(record);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listOperations<Sample>(org, 'withdrawal', { limit: 2, ...(cursor ? { cursor } : {}) });
      seen.push(...page.rows.map((row) => row.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());

    const page = await listOperations<Sample>(org, 'withdrawal', { limit: 2 });
    await expect(listOperations(newOrg(), 'withdrawal', { cursor: page.nextCursor! })).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(listOperations(org, 'offramp', { cursor: page.nextCursor! })).rejects.toMatchObject({ code: 'invalid_cursor' });
  });
});
