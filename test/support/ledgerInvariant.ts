import { expect } from 'vitest';
import { journalTotals, listJournalEntries, organizationAccounts, readBalance, type LedgerBalance } from '#store/ledger.ts';

/**
 * The ledger's invariant for one organization (DESIGN.md, "Ledger"): every journal entry's legs
 * sum to zero, the balance item equals the sum of the journal's organization legs account by
 * account, and no account is negative. Reads are strongly consistent but not one snapshot, so
 * call it when no movement of the organization is in flight. Answers the balance it checked.
 */
export async function expectLedgerInvariant(organizationId: string): Promise<LedgerBalance> {
  const balance = await readBalance(organizationId);
  const entries = await listJournalEntries(organizationId);
  const totals = await journalTotals(organizationId);
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
