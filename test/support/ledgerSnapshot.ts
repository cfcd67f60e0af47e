import { listJournalEntries, organizationAccounts, readBalance, type JournalEntry, type LedgerBalance } from '#store/ledger.ts';

/**
 * One organization's balance item and journal as of one moment, though read in three calls: the
 * balance before and after the entries. Each movement writes its entry and the balance in one
 * transaction, so a balance that did not change between the two reads brackets a journal that did
 * not either; when it changed (a withdrawal or off-ramp still moving money), the reads are taken
 * again. `read` wraps each call (the chaos harness waits out a killed DynamoDB Local with it).
 */
export async function stableLedger(
  organizationId: string,
  read: <T>(call: () => Promise<T>) => Promise<T> = (call) => call(),
): Promise<{ balance: LedgerBalance; entries: JournalEntry[] }> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const before = await read(() => readBalance(organizationId));
    const entries = await read(() => listJournalEntries(organizationId));
    const balance = await read(() => readBalance(organizationId));
    if (before.updatedAt === balance.updatedAt && organizationAccounts.every((account) => before[account] === balance[account])) return { balance, entries };
  }
  throw new Error(`the ledger of ${organizationId} never stood still for one read`);
}
