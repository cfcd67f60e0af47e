import { expect } from 'vitest';
import { organizationAccounts, organizationTotals, type LedgerBalance } from '#store/ledger.ts';
import { stableLedger } from './ledgerSnapshot.ts';
import { until } from './eventually.ts';

/**
 * The ledger's invariant for one organization (DESIGN.md, "Ledger"): every journal entry's legs
 * sum to zero, the balance item equals the sum of the journal's organization legs account by
 * account, and no account is negative (read as of one moment: stableLedger). Answers the balance it checked.
 */
export async function expectLedgerInvariant(organizationId: string): Promise<LedgerBalance> {
  const { balance, entries } = await stableLedger(organizationId);
  const totals = organizationTotals(entries);
  for (const entry of entries) {
    const sum = entry.legs.reduce((total, leg) => total + leg.amount, 0n);
    expect(sum, `legs of ${entry.entryId} sum to zero`).toBe(0n);
  }
  for (const account of organizationAccounts) {
    expect(balance[account], `${account} of ${organizationId} equals its journal`).toBe(totals[account]);
    expect(balance[account] >= 0n, `${account} of ${organizationId} is not negative (${balance[account]})`).toBe(true);
  }
  if (entries.length === 0) expect(balance.updatedAt, 'no balance item without a journal entry').toBeNull();
  return balance;
}

/**
 * Every organization that has a balance item in the current table (scanned: tests only), once
 * no payment of the table is in flight any more.
 */
export async function expectLedgerInvariantForAll(timeoutMs = 30_000): Promise<number> {
  const { ScanCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamo, tableName } = await import('#store/client.ts');
  const { isRunning } = await import('#domain/paymentStates.ts');
  await until(
    async () => {
      const { Items } = await dynamo().send(new ScanCommand({
        TableName: tableName(), FilterExpression: 'entity = :tx', ExpressionAttributeValues: { ':tx': 'transaction' }, ConsistentRead: true,
      }));
      return (Items ?? []).filter((item) => isRunning(item.state)).map((item) => item.transactionId as string);
    },
    (running) => running.length === 0,
    { what: 'no payment in flight', timeoutMs, intervalMs: 100 },
  );
  const organizations = new Set<string>();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo().send(new ScanCommand({
      TableName: tableName(),
      FilterExpression: 'entity = :balance',
      ExpressionAttributeValues: { ':balance': 'balance' },
      ProjectionExpression: 'pk',
      ExclusiveStartKey: start,
    }));
    for (const item of page.Items ?? []) organizations.add(String(item.pk).replace(/^ORG#/, ''));
    start = page.LastEvaluatedKey;
  } while (start);
  for (const organizationId of organizations) await expectLedgerInvariant(organizationId);
  return organizations.size;
}
