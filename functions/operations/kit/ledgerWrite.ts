import { cancellationReasons, transactWrite, writeOne, type TransactItem } from '#store/client.ts';
import { applyMovement, MovementAlreadyApplied, TransactionConflict, type LedgerMovement } from '#store/ledger.ts';

/**
 * The one write of every move of every operation: the operation's own items (the first is its
 * conditional update on the status it expects; then its count, its outbox event, ...) together with
 * the ledger movement that explains it, all or nothing (docs/decisions/123). False when the
 * operation had moved on: its condition failed, or the journal entry exists (only this very move,
 * written before, can have made it). Anything else is thrown with nothing written: a movement that
 * does not fit (InsufficientFunds), another of the caller's conditions (TransactionConflict, with
 * its codes), a cancellation without a ledger movement whose first item held.
 */
export async function writeWithLedger(items: TransactItem[], ledger?: LedgerMovement): Promise<boolean> {
  // A move that writes its status alone (no money, no event, no count) needs no transaction.
  if (!ledger && items.length === 1) return writeOne(items[0]!);
  try {
    if (ledger) await applyMovement(ledger, items);
    else await transactWrite(items);
    return true;
  } catch (error) {
    if (error instanceof TransactionConflict && error.extraCodes[0] === 'ConditionalCheckFailed') return false;
    if (error instanceof MovementAlreadyApplied) return false;
    if (!ledger && cancellationReasons(error)?.[0]?.Code === 'ConditionalCheckFailed') return false;
    throw error;
  }
}
