import { organizationAccounts, organizationTotals, type JournalEntry, type LedgerAccount } from '#store/ledger.ts';
import { until } from '../support/eventually.ts';
import { stableLedger } from '../support/ledgerSnapshot.ts';
import { onRampDepositId } from '#operations/onRamp/progress.ts';
import type { ChainDepositRecord } from '#operations/chainDeposit/view.ts';
import { getOperation } from '#store/operations.ts';
import { getExecution } from '#store/executions.ts';
import { findOperation, historyLines } from '../../lib/ops/operationHistory.ts';
import { verify, type ReceivedDelivery } from '../support/webhookReceiver.ts';
import { settledStates, type Model, type Operation, type WebhookGap } from './model.ts';
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

/** How long an operation may take to end once the workload stops (the simulators' slowest bands retry twice). */
export const settleTimeoutMs = 120_000;

/**
 * The state an operation ends (or parks) in, polled as an integrator would; past the deadline it is
 * reported lost. An off-ramp's status has no `running`: it has ended once `state` is set.
 */
export async function endOf(
  world: World,
  organization: Pick<ChaosOrganization, 'organizationId' | 'apiKey'>,
  operation: Pick<Operation, 'kind' | 'id' | 'statusPath'>,
  timeoutMs = settleTimeoutMs,
): Promise<string> {
  const { organizationId, apiKey } = organization;
  let last: Record<string, unknown> | undefined;
  const body = await until(
    async () => (last = (await world.request('GET', operation.statusPath, apiKey)).body),
    (body) => body && (body.running === false || (operation.kind === 'offramp' && body.state !== undefined)) && settledStates.has(String(body.state)),
    { what: `${operation.kind} ${operation.id} to end`, timeoutMs, intervalMs: 100 },
  ).catch(async () => fail(`${operation.kind} ${operation.id} was lost: it never ended or parked within ${timeoutMs / 1000} s\n${await whereItStands(last, organizationId, operation.id)}`));
  return String(body.state);
}

/** What a lost operation's reader needs before the data directory goes: its last answer and the tail of its history (admin history's lines). */
async function whereItStands(last: Record<string, unknown> | undefined, organizationId: string, id: string): Promise<string> {
  const answer = last ? `last answer: state ${String(last.state)}, running ${String(last.running)}` : 'no answer read';
  // Read from the table, not through the process's workflow engine: between operator calls this
  // process has none of its own (the stack runs in another process).
  const operation = await findOperation(organizationId, id).catch((error: Error) => error);
  if (operation instanceof Error || !operation) return `${answer}\nhistory: ${operation instanceof Error ? `not read (${operation.message})` : 'no operation of that id'}`;
  const execution = await getExecution(operation.executionName, operation.workflow).catch(() => undefined);
  // Who drives it: a runner still alive holds it (its lease renewed), a dead one's is re-driven.
  const driver = execution
    ? `execution ${execution.status}, owner pid ${execution.owner.pid} (this process ${process.pid}), lease ${Math.round((execution.leaseExpiresAt - Date.now()) / 1000)} s from now, drives ${execution.drives}`
    : 'no execution record';
  const lines = historyLines(execution?.events ?? [], operation.timeline);
  const tail = lines.slice(-12).map((line) => `  ${line.at} ${line.text}`);
  return `${answer}\n${driver}\nhistory (last ${tail.length} of ${lines.length} lines):\n${tail.join('\n')}`;
}

/**
 * A chain deposit's end: it has no GET (the organization sees it in GET /balance), so its record
 * is read as operations would; one moving home ends CREDITED once its workflow has moved it.
 */
export async function chainDepositEnd(organizationId: string, id: string, timeoutMs = settleTimeoutMs): Promise<string> {
  const record = await until(
    () => patiently(() => getOperation<ChainDepositRecord>(organizationId, 'chainDeposit', id)),
    (record) => record !== undefined && record.status !== 'SETTLING' && record.status !== 'MOVING',
    { what: `chain deposit ${id} to be credited`, timeoutMs, intervalMs: 100 },
  ).catch(async () => fail(`chain deposit ${id} was lost: it never ended within ${timeoutMs / 1000} s\n${await whereItStands(undefined, organizationId, id)}`));
  return record!.status;
}

/** Net organization legs of each operation's entries, with the entries' kinds (the step after the id) and ids. */
function movementsByOperation(entries: JournalEntry[]): Map<string, { steps: string[]; ids: string[]; net: Record<LedgerAccount, bigint> }> {
  const entriesOf = new Map<string, JournalEntry[]>();
  for (const entry of entries) {
    const own = entriesOf.get(entry.operation.id);
    if (own) own.push(entry);
    else entriesOf.set(entry.operation.id, [entry]);
  }
  return new Map(
    [...entriesOf].map(([operationId, own]) => [
      operationId,
      { steps: own.map((entry) => entry.entryId.slice(entry.entryId.lastIndexOf(':') + 1)), ids: own.map((entry) => entry.entryId), net: organizationTotals(own) },
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
    const movement = movementOf(moved, operation);
    if (new Set(movement.steps).size !== movement.steps.length) violated(`${operation.kind} ${operation.id} moved money twice in one step: ${movement.steps.join(', ')}`);
    const { available, held, settling } = movement.net;
    const noNet = available === 0n && held === 0n;
    const paidOut = available < 0n && held === 0n;
    const stillHeld = held > 0n && available === -held;
    const expected: Record<string, boolean> = {
      FAILED: noNet,
      REFUNDED: operation.kind === 'deposit' ? movement.steps.length === 0 : noNet,
      RETURNED: noNet,
      RECONCILED: paidOut,
      SENT: paidOut,
      PAID: paidOut,
      IN_DOUBT: operation.kind === 'deposit' ? movement.steps.length === 0 : stillHeld,
      NEEDS_ATTENTION: stillHeld,
      DELIVERED: available > 0n && held === 0n,
      // Credited less the move fee (the fee may eat a small deposit whole), nothing left settling.
      CREDITED: available === operation.credits && held === 0n && settling === 0n,
    };
    if (expected[state] === false) {
      violated(`${operation.kind} ${operation.id} ended ${state} but its movements net available ${available}, held ${held} (${movement.steps.join(', ') || 'none'})`);
    }
    counted('movements of an operation agree with its end');
  }
  batchMovementsAgree(operations, moved, finalStates);
}

/**
 * A batch's money, item by item: one hold for the batch, a release of an item's share when it fails
 * before its payment, and each funded item's own release or capture (a payment's). Once every item
 * has ended, what the batch still holds is what its parked items were sent with, and what left the
 * balance for good is what its reconciled items were sent with; no entry of the batch or an item twice.
 */
function batchMovementsAgree(operations: Operation[], moved: ReturnType<typeof movementsByOperation>, finalStates: Map<string, string>): void {
  const batches = new Map<string, Operation[]>();
  for (const operation of operations) {
    if (operation.kind !== 'batchItem') continue;
    const batchId = operation.id.slice(0, operation.id.lastIndexOf(':'));
    batches.set(batchId, [...(batches.get(batchId) ?? []), operation]);
  }
  for (const [batchId, items] of batches) {
    if (items.some((item) => finalStates.get(item.id) === undefined || item.amount === undefined)) continue;
    const parts = [moved.get(batchId), ...items.map((item) => moved.get(item.id))].filter((part) => part !== undefined);
    const ids = parts.flatMap((part) => part.ids);
    if (new Set(ids).size !== ids.length) violated(`batch ${batchId} moved money twice in one step: ${ids.join(', ')}`);
    for (const item of items) {
      const steps = moved.get(item.id)?.steps ?? [];
      if (new Set(steps).size !== steps.length) violated(`batchItem ${item.id} moved money twice in one step: ${steps.join(', ')}`);
    }
    const sentIn = (states: string[]) => items.filter((item) => states.includes(finalStates.get(item.id)!)).reduce((sum, item) => sum + minorOf(item.amount!, 6), 0n);
    const held = sentIn(['IN_DOUBT', 'NEEDS_ATTENTION']);
    const available = -sentIn(['RECONCILED']) - held;
    const net = { available: parts.reduce((sum, part) => sum + part.net.available, 0n), held: parts.reduce((sum, part) => sum + part.net.held, 0n) };
    if (net.available !== available || net.held !== held) {
      violated(`batch ${batchId} (items ${items.map((item) => `${item.id} ${item.amount} ${finalStates.get(item.id)}`).join(', ')}) nets available ${net.available}, held ${net.held}; its items' ends say ${available}, ${held} (${ids.join(', ')})`);
    }
    counted("movements of a batch agree with its items' ends");
  }
}

/**
 * An operation's movements: a deposit's credit names the deposit it came from (`onramp:<id>`), not
 * the on-ramp alone; a chain deposit's credit on the home network is `chain:<id>`, its move home
 * the deposit's own id.
 */
function movementOf(moved: ReturnType<typeof movementsByOperation>, operation: Operation): { steps: string[]; net: Record<LedgerAccount, bigint> } {
  const none = { steps: [], net: { available: 0n, held: 0n, settling: 0n } };
  if (operation.kind === 'deposit') return moved.get(onRampDepositId(operation.id)) ?? none;
  if (operation.kind !== 'chainDeposit') return moved.get(operation.id) ?? none;
  const parts = [moved.get(`chain:${operation.id}`), moved.get(operation.id)].filter((part) => part !== undefined);
  return {
    steps: parts.flatMap((part) => part.steps),
    net: { available: parts.reduce((sum, part) => sum + part.net.available, 0n), held: parts.reduce((sum, part) => sum + part.net.held, 0n), settling: parts.reduce((sum, part) => sum + part.net.settling, 0n) },
  };
}

/** Events the contract names for each end (docs: "Events"). */
const eventsOfEnd: Record<string, Record<string, string[]>> = {
  payment: { RECONCILED: ['transaction.reconciled'], REFUNDED: ['transaction.refunded'], IN_DOUBT: ['transaction.in_doubt'], FAILED: [], NEEDS_ATTENTION: [] },
  batchItem: { RECONCILED: ['transaction.reconciled'], REFUNDED: ['transaction.refunded'], IN_DOUBT: ['transaction.in_doubt'], FAILED: [], NEEDS_ATTENTION: [] },
  deposit: { DELIVERED: ['onramp.delivered'], REFUNDED: ['onramp.refunded'], FAILED: [], IN_DOUBT: [] },
  offramp: { PAID: ['offramp.paid'], REFUNDED: [], FAILED: [], IN_DOUBT: [] },
};

/** The organization a delivery was sent to: its path begins with the organization's id (the URL registered at onboarding, or another a webhook change put). */
export function recipientOf<T extends ChaosOrganization>(delivery: ReceivedDelivery, organizations: readonly T[]): T | undefined {
  const first = delivery.path.split(/[/?]/)[1];
  return organizations.find((organization) => organization.organizationId === first);
}

/** A delivery's payload verified with one of the secrets its organization was given, as its receiver would; undefined when none verifies it. */
export function verifiedPayload(delivery: ReceivedDelivery, organization: ChaosOrganization): { type: string; data: Record<string, any> } | undefined {
  for (const secret of organization.webhookSecrets) {
    try {
      return verify(delivery, secret);
    } catch {
      // Not signed with this one: the next.
    }
  }
  return undefined;
}

/** The operation an event is about (the same field names as the GETs answer). */
export function subjectOf(payload: { data: Record<string, any> }): string {
  return String(payload.data.transactionId ?? payload.data.onRampId ?? payload.data.offRampId ?? '');
}

/**
 * Deliveries the receiver got, verified with the secrets each organization was given: events by
 * type and subject id. A delivery no secret verifies is a violation, unless it was signed while the
 * secret its registration issued was lost to a kill (model.webhookGaps): it is then not received.
 */
export function verifiedEvents(world: World, organizations: ChaosOrganization[], gaps: readonly WebhookGap[] = []): Map<string, Set<string>> {
  const events = new Map<string, Set<string>>();
  for (const delivery of world.receiver.deliveries) {
    const organization = recipientOf(delivery, organizations);
    if (!organization) continue;
    const payload = verifiedPayload(delivery, organization);
    if (!payload) {
      const index = organizations.indexOf(organization);
      const signedAt = Number(delivery.timestamp) * 1000;
      if (gaps.some((gap) => gap.secretLost && gap.organization === index && delivery.receivedAt >= gap.from && signedAt <= gap.to)) {
        counted('webhook signed with a secret whose answer a kill took: not received');
        continue;
      }
      violated(`a webhook to ${organization.organizationId} (${delivery.id}, ${delivery.path}) is signed with none of the ${organization.webhookSecrets.length} secret(s) it was given`);
    }
    counted('webhook signature valid');
    const key = `${payload.type} ${subjectOf(payload)}`;
    const ids = events.get(key) ?? new Set<string>();
    ids.add(delivery.id);
    events.set(key, ids);
  }
  return events;
}

/**
 * Each end the contract gives an event has exactly one event (one webhook id, however many times it
 * was delivered), and no other end has one. An operation an operator resolved passed through its
 * parked state: the events of both are its own.
 */
export function eventsAgree(operations: Operation[], finalStates: Map<string, string>, events: Map<string, Set<string>>): string[] {
  const missing: string[] = [];
  for (const operation of operations) {
    const byEnd = eventsOfEnd[operation.kind];
    const state = finalStates.get(operation.id);
    if (!byEnd || state === undefined) continue;
    const reached = new Set([state, ...(operation.resolvedFrom ? [operation.resolvedFrom] : [])]);
    for (const [end, types] of Object.entries(byEnd)) {
      for (const type of types) {
        const count = events.get(`${type} ${operation.id}`)?.size ?? 0;
        if (reached.has(end) && count === 0) missing.push(`${type} ${operation.id}`);
        if (count > 1) violated(`${operation.kind} ${operation.id} has ${count} different ${type} events`);
        if (!reached.has(end) && count > 0) violated(`${operation.kind} ${operation.id} ended ${state}${operation.resolvedFrom ? ` (resolved from ${operation.resolvedFrom})` : ''} but has a ${type} event`);
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

/** The lists an operation of each kind is a row of, and the field naming it. */
const listOf: Partial<Record<Operation['kind'], { path: string; rows: string; id: string; amount: string }>> = {
  payment: { path: '/transactions', rows: 'transactions', id: 'transactionId', amount: 'sendAmount' },
  batchItem: { path: '/transactions', rows: 'transactions', id: 'transactionId', amount: 'sendAmount' },
  withdrawal: { path: '/treasury/withdrawals', rows: 'withdrawals', id: 'withdrawalId', amount: 'amount' },
  deposit: { path: '/treasury/onramps', rows: 'onramps', id: 'onRampId', amount: 'amount' },
  offramp: { path: '/treasury/offramps', rows: 'offramps', id: 'offRampId', amount: 'amount' },
};

type Row = Record<string, any>;

/** Every row of a list, page by page as an integrator walks it; a row twice is a violation. */
async function walk(world: World, apiKey: string, path: string, rowsField: string, idField: string): Promise<Map<string, Row>> {
  const rows = new Map<string, Row>();
  let cursor: string | null = null;
  for (let page = 0; ; page += 1) {
    const answer = await world.request('GET', `${path}${path.includes('?') ? '&' : '?'}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, apiKey);
    if (answer.status !== 200) violated(`GET ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const { [rowsField]: found, count, nextCursor, hasMore } = answer.body as Row;
    if (!Array.isArray(found) || count !== found.length || hasMore !== (nextCursor !== null)) violated(`GET ${path} page ${page} is inconsistent: count ${count}, ${found?.length} rows, hasMore ${hasMore}, nextCursor ${nextCursor}`);
    for (const row of found as Row[]) {
      const id = String(row[idField]);
      if (rows.has(id)) violated(`GET ${path} lists ${id} twice`);
      rows.set(id, row);
    }
    if (!hasMore) return rows;
    cursor = nextCursor;
  }
}

/** A decimal string (`12.3`) in minor units of `scale` decimals. */
function minorOf(decimal: string, scale: number): bigint {
  const [whole, fraction = ''] = decimal.split('.');
  return BigInt(whole!) * 10n ** BigInt(scale) + BigInt(fraction.padEnd(scale, '0').slice(0, scale) || '0');
}

/**
 * The lists and the statement against the model and the ledger's ends: every operation the model
 * knows is a row of its list exactly once, with the amount it was sent with, and no row is one the
 * model does not know; GET still gives each the state it ended in. The statement has one line per
 * payment, with the amount sent, a realized fee only for a reconciled payment, and totals that are
 * the sums of its lines.
 */
export async function listsAgree(world: World, apiKey: string, operations: Operation[], finalStates: Map<string, string>): Promise<void> {
  const byList = new Map<string, Operation[]>();
  for (const operation of operations) {
    const list = listOf[operation.kind];
    if (!list) continue;
    byList.set(list.path, [...(byList.get(list.path) ?? []), operation]);
  }
  for (const [path, own] of byList) {
    const list = listOf[own[0]!.kind]!;
    const rows = await walk(world, apiKey, path, list.rows, list.id);
    const known = new Map(own.map((operation) => [operation.id, operation]));
    for (const id of rows.keys()) if (!known.has(id)) violated(`GET ${path} lists ${id}, which the workload never started`);
    for (const operation of known.values()) {
      const row = rows.get(operation.id);
      if (!row) violated(`${operation.kind} ${operation.id} is missing from GET ${path}`);
      const amount = row[list.amount] as { amount: string; scale: number } | undefined;
      if (operation.amount !== undefined && (!amount || BigInt(amount.amount) !== minorOf(operation.amount, amount.scale))) {
        violated(`GET ${path} lists ${operation.kind} ${operation.id} with ${JSON.stringify(amount)}; it was sent with ${operation.amount}`);
      }
      const state = finalStates.get(operation.id);
      const again = await world.request('GET', operation.statusPath, apiKey);
      if (state !== undefined && again.body?.state !== state) violated(`${operation.kind} ${operation.id} ended ${state} but GET now says ${again.status} ${JSON.stringify(again.body?.state)}`);
    }
    counted(`list agrees with the model (${path})`);
  }

  const payments = operations.filter((operation) => operation.kind === 'payment' || operation.kind === 'batchItem');
  const statement = await world.request('GET', '/statements', apiKey);
  if (statement.status !== 200) violated(`GET /statements answered ${statement.status}: ${JSON.stringify(statement.body)}`);
  const lines = new Map<string, Row>();
  for (const line of statement.body.lines as Row[]) {
    if (lines.has(line.transactionId)) violated(`the statement has ${line.transactionId} twice`);
    lines.set(line.transactionId, line);
  }
  const known = new Set(payments.map((payment) => payment.id));
  for (const id of lines.keys()) if (!known.has(id)) violated(`the statement has a line for ${id}, which the workload never started`);
  const volume = new Map<string, bigint>();
  const fees = new Map<string, bigint>();
  for (const payment of payments) {
    const line = lines.get(payment.id);
    if (!line) violated(`payment ${payment.id} is missing from the statement`);
    if (payment.amount !== undefined && BigInt(line.sendAmount.amount) !== minorOf(payment.amount, line.sendAmount.scale)) violated(`the statement has ${payment.id} at ${JSON.stringify(line.sendAmount)}; it was sent with ${payment.amount}`);
    volume.set(line.sendAmount.currency, (volume.get(line.sendAmount.currency) ?? 0n) + BigInt(line.sendAmount.amount));
    const realized = (line.fee as { amount: string; currency: string }[]).reduce((sum, fee) => sum + BigInt(fee.amount), 0n);
    for (const fee of line.fee as { amount: string; currency: string }[]) fees.set(fee.currency, (fees.get(fee.currency) ?? 0n) + BigInt(fee.amount));
    const state = finalStates.get(payment.id);
    if (state !== undefined && state !== 'RECONCILED' && realized !== 0n) violated(`payment ${payment.id} ended ${state} but the statement realizes a fee of ${realized}`);
  }
  const totals = statement.body.totals as { transactionCount: number; initiatedVolume: { amount: string; currency: string }[]; feesEarned: { amount: string; currency: string }[] };
  const sums = (money: { amount: string; currency: string }[]) => new Map(money.filter((each) => BigInt(each.amount) !== 0n).map((each) => [each.currency, BigInt(each.amount)]));
  const same = (a: Map<string, bigint>, b: Map<string, bigint>) => [...a].filter(([, value]) => value !== 0n).length === [...b].filter(([, value]) => value !== 0n).length && [...a].every(([currency, value]) => value === 0n || b.get(currency) === value);
  if (totals.transactionCount !== lines.size || !same(volume, sums(totals.initiatedVolume)) || !same(fees, sums(totals.feesEarned))) {
    violated(`the statement's totals are not the sums of its lines: ${JSON.stringify(totals)}`);
  }
  counted('statement agrees with the model and its lines');
}

/**
 * Events an organization's webhook gap (model.webhookGaps) kept from its receiver, as the service
 * records them (GET /events): raised before the endpoint was registered again, and `not_sent` (no
 * endpoint took it when it was raised; no attempt), `stopped` (its registration was deleted before
 * an attempt got through) or delivered only while the secret was lost. Delivery reads the endpoint
 * when the event is raised and at every attempt, so the service promises no more for them; an
 * integrator finds them in GET /events and redelivers them, and the harness does the same, once
 * each: they must then arrive, signed, like any other. Every other missing event stays missing.
 */
export async function redeliverGapEvents(world: World, organizations: ChaosOrganization[], model: Model, missing: string[], redelivered: Set<string>): Promise<void> {
  // One walk of an organization's events of a type serves every missing event of that type.
  const walked = new Map<string, Promise<Map<string, Row>>>();
  for (const key of missing) {
    const [type, subject] = key.split(' ') as [string, string];
    const operation = model.operations.find((each) => each.id === subject);
    const gaps = model.webhookGaps.filter((gap) => gap.organization === operation?.organization);
    if (!operation || gaps.length === 0) continue;
    const organization = organizations[operation.organization]!;
    const restored = Math.max(...gaps.map((gap) => gap.to));
    const walkKey = `${operation.organization} ${type}`;
    if (!walked.has(walkKey)) walked.set(walkKey, walk(world, organization.apiKey, `/events?type=${type}`, 'events', 'id'));
    const rows = await walked.get(walkKey)!;
    for (const row of rows.values()) {
      if (redelivered.has(row.id) || Date.parse(row.createdAt) >= restored || !['not_sent', 'stopped', 'delivered'].includes(row.deliveryStatus)) continue;
      const detail = await world.request('GET', `/events/${encodeURIComponent(row.id)}`, organization.apiKey);
      if (detail.status !== 200) violated(`GET /events/${row.id} answered ${detail.status}: ${JSON.stringify(detail.body)}`);
      if (subjectOf(detail.body.payload) !== subject) continue;
      const attempts = detail.body.attempts as { attemptedAt: string; httpStatus: number | null }[];
      const through = attempts.filter((attempt) => attempt.httpStatus !== null && attempt.httpStatus >= 200 && attempt.httpStatus < 300);
      const whileLost = (at: string) => gaps.some((gap) => gap.secretLost && Date.parse(at) >= gap.from && Date.parse(at) <= gap.to);
      const kept = row.deliveryStatus === 'not_sent' ? attempts.length === 0 : row.deliveryStatus === 'stopped' ? through.length === 0 : through.length > 0 && through.every((attempt) => whileLost(attempt.attemptedAt));
      if (!kept) continue;
      const again = await world.request('POST', `/events/${encodeURIComponent(row.id)}/redeliver`, organization.apiKey);
      if (again.status !== 202) violated(`redelivering ${key} (${row.id}, ${row.deliveryStatus} in a webhook gap) answered ${again.status}: ${JSON.stringify(again.body)}`);
      redelivered.add(row.id);
      counted(`an event kept from the receiver by a webhook gap (${row.deliveryStatus}) redelivered`);
    }
  }
}
