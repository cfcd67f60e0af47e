import { organizationAccounts, organizationTotals, type JournalEntry, type LedgerAccount } from '#store/ledger.ts';
import { until } from '../support/eventually.ts';
import { stableLedger } from '../support/ledgerSnapshot.ts';
import { onRampDepositId } from '#operations/onRamp/progress.ts';
import { verify } from '../support/webhookReceiver.ts';
import type { Model, Operation } from './model.ts';
import type { ChaosOrganization, World } from './world.ts';

/** A broken invariant: fast-check shrinks the command sequence that led to it. */
export class InvariantViolation extends Error {
  override readonly name = 'InvariantViolation';
}

/** How many invariant checks a run made, by kind (the run's table). */
export const checksMade = new Map<string, number>();
function counted(kind: string, count = 1): void {
  checksMade.set(kind, (checksMade.get(kind) ?? 0) + count);
}

function violated(what: string): never {
  throw new InvariantViolation(what);
}

/**
 * The ledger of one organization while its money moves: every entry balances, the balance item
 * equals the sum of the entries' organization legs, no account is negative. The balance is read
 * before and after the entries; when it moved meanwhile the read is taken again (each movement
 * writes its entry and the balance in one transaction, so an unchanged balance brackets a still
 * journal).
 */
export async function ledgerHolds(organizationId: string): Promise<JournalEntry[]> {
  const { balance, entries } = await stableLedger(organizationId, patiently).catch((error: Error) => violated(error.message));
  for (const entry of entries) {
    const sum = entry.legs.reduce((total, leg) => total + leg.amount, 0n);
    if (sum !== 0n) violated(`journal entry ${entry.entryId} of ${organizationId} does not balance (legs sum to ${sum})`);
  }
  const totals = organizationTotals(entries);
  for (const account of organizationAccounts) {
    if (balance[account] !== totals[account]) violated(`${account} of ${organizationId} is ${balance[account]} but its journal sums to ${totals[account]}`);
    if (balance[account] < 0n) violated(`${account} of ${organizationId} is negative (${balance[account]})`);
  }
  counted('ledger (entries balance, balance = journal, none negative)');
  return entries;
}

/**
 * A read of the table that waits out a stack being killed and started again (DynamoDB Local is
 * down meanwhile): any error but a violation is tried again for up to three minutes.
 */
async function patiently<T>(read: () => Promise<T>): Promise<T> {
  const outcome = await until(
    () => read().then((value): { value: T } | { error: unknown } => ({ value }), (error: unknown) => ({ error })),
    (outcome) => !('error' in outcome) || outcome.error instanceof InvariantViolation,
    { what: 'the table to answer (a killed DynamoDB Local coming back)', timeoutMs: 180_000, intervalMs: 250 },
  );
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

/** Net organization legs of each operation's entries, with the entries' kinds (the step after the id). */
function movementsByOperation(entries: JournalEntry[]): Map<string, { steps: string[]; net: Record<LedgerAccount, bigint> }> {
  const entriesOf = new Map<string, JournalEntry[]>();
  for (const entry of entries) {
    const own = entriesOf.get(entry.operation.id);
    if (own) own.push(entry);
    else entriesOf.set(entry.operation.id, [entry]);
  }
  return new Map(
    [...entriesOf].map(([operationId, own]) => [
      operationId,
      { steps: own.map((entry) => entry.entryId.slice(entry.entryId.lastIndexOf(':') + 1)), net: organizationTotals(own) },
    ]),
  );
}

/**
 * What an operation's end means for the organization's money: an operation that moved nothing out
 * (failed, refunded, returned) nets to zero; one paid out nets to a debit with nothing left held;
 * one parked for a person still holds its funds; a delivered deposit is a credit. And each step of
 * an operation moves money at most once.
 */
export function movementsAgree(operations: Operation[], entries: JournalEntry[], finalStates: Map<string, string>): void {
  const moved = movementsByOperation(entries);
  for (const operation of operations) {
    const state = finalStates.get(operation.id);
    // A batch item's movements are the batch's (one hold for the batch, a release per failed item).
    if (operation.kind === 'batchItem' || state === undefined) continue;
    // A deposit's credit names the deposit it came from (`onramp:<id>`), not the on-ramp alone.
    const movement = moved.get(operation.kind === 'deposit' ? onRampDepositId(operation.id) : operation.id) ?? { steps: [], net: { available: 0n, held: 0n, settling: 0n } };
    if (new Set(movement.steps).size !== movement.steps.length) violated(`${operation.kind} ${operation.id} moved money twice in one step: ${movement.steps.join(', ')}`);
    const { available, held } = movement.net;
    const noNet = available === 0n && held === 0n;
    const paidOut = available < 0n && held === 0n;
    const stillHeld = held > 0n && available === -held;
    const expected: Record<string, boolean> = {
      FAILED: noNet,
      REFUNDED: operation.kind === 'deposit' ? movement.steps.length === 0 : noNet,
      RETURNED: noNet,
      RECONCILED: paidOut,
      SENT: paidOut,
      IN_DOUBT: operation.kind === 'deposit' ? movement.steps.length === 0 : stillHeld,
      NEEDS_ATTENTION: stillHeld,
      DELIVERED: available > 0n && held === 0n,
    };
    if (expected[state] === false) {
      violated(`${operation.kind} ${operation.id} ended ${state} but its movements net available ${available}, held ${held} (${movement.steps.join(', ') || 'none'})`);
    }
    counted('movements of an operation agree with its end');
  }
}

/** Events the contract names for each end (docs: "Events"). */
const eventsOfEnd: Record<string, Record<string, string[]>> = {
  payment: { RECONCILED: ['transaction.reconciled'], REFUNDED: ['transaction.refunded'], IN_DOUBT: ['transaction.in_doubt'], FAILED: [], NEEDS_ATTENTION: [] },
  batchItem: { RECONCILED: ['transaction.reconciled'], REFUNDED: ['transaction.refunded'], IN_DOUBT: ['transaction.in_doubt'], FAILED: [], NEEDS_ATTENTION: [] },
  deposit: { DELIVERED: ['onramp.delivered'], REFUNDED: ['onramp.refunded'], FAILED: [], IN_DOUBT: [] },
};

/** Deliveries the receiver got, verified with each organization's secret: events by type and subject id. */
export function verifiedEvents(world: World, organizations: ChaosOrganization[]): Map<string, Set<string>> {
  const byPath = new Map(organizations.map((organization) => [`/${organization.organizationId}`, organization]));
  const events = new Map<string, Set<string>>();
  for (const delivery of world.receiver.deliveries) {
    const organization = byPath.get(delivery.path);
    if (!organization) continue;
    let payload: { type: string; data: Record<string, any> };
    try {
      payload = verify(delivery, organization.webhookSecret);
    } catch (error) {
      violated(`a webhook to ${organization.organizationId} (${delivery.id}) fails its signature: ${(error as Error).message}`);
    }
    counted('webhook signature valid');
    const subject = String(payload.data.transactionId ?? payload.data.onRampId ?? payload.data.offRampId ?? '');
    const key = `${payload.type} ${subject}`;
    const ids = events.get(key) ?? new Set<string>();
    ids.add(delivery.id);
    events.set(key, ids);
  }
  return events;
}

/**
 * Each end the contract gives an event has exactly one event (one webhook id, however many times it
 * was delivered), and no other end has one.
 */
export function eventsAgree(operations: Operation[], finalStates: Map<string, string>, events: Map<string, Set<string>>): string[] {
  const missing: string[] = [];
  for (const operation of operations) {
    const byEnd = eventsOfEnd[operation.kind];
    const state = finalStates.get(operation.id);
    if (!byEnd || state === undefined) continue;
    for (const [end, types] of Object.entries(byEnd)) {
      for (const type of types) {
        const count = events.get(`${type} ${operation.id}`)?.size ?? 0;
        if (end === state && count === 0) missing.push(`${type} ${operation.id}`);
        if (count > 1) violated(`${operation.kind} ${operation.id} has ${count} different ${type} events`);
        if (end !== state && count > 0) violated(`${operation.kind} ${operation.id} ended ${state} but has a ${type} event`);
      }
    }
  }
  if (missing.length === 0) counted('events of an operation agree with its end', operations.length);
  return missing;
}

export function countChecks(kind: string, count = 1): void {
  counted(kind, count);
}

export function fail(what: string): never {
  return violated(what);
}

export type { Model };
