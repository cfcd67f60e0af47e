/**
 * Payments on the local stack, for `npm run bench` (bench/run.ts calls paymentFigures):
 * - POST /quotes and POST /transactions under autocannon, concurrency 1 and 16;
 * - the time from the 202 to RECONCILED, with every simulated delay at zero;
 * - payments per second end to end (first POST to last RECONCILED);
 * - per payment: DynamoDB calls (in the POST vs the rest), consumed capacity, state transitions,
 *   outbox events and Lambda invocations;
 * - the AWS list-price cost per 1,000 payments those counts imply, prices and assumptions beside it.
 *
 * Everything runs in this process (API handlers, workflow tasks, stream poller, event targets), so
 * the DynamoDB client's own counters see every call. Counting is done in a quiet system, one payment
 * at a time, so that each call can be attributed; the throughput runs cross-check the averages.
 */
import { operationExecutionName } from '#operations/kit/start.ts';
import { readFileSync } from 'node:fs';
import pMap from 'p-map';
import { availableParallelism } from 'node:os';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import type { LocalService } from '../lib/local/service.ts';
import { matchesPattern } from '../lib/local/eventBus.ts';
import { onboardOrganization } from '../lib/ops/onboarding.ts';
import type { BusEntry } from '#platform/eventBus.ts';
import { dynamoCallCount, inspectCalls, observeConsumedCapacity, type CapacityRecord } from '#store/client.ts';
import { runningExecutionsKey } from '#store/executions.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { getTransaction } from '#store/transactions.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { eventRules } from '#contract/events.ts';
import { documentItemBytes, kbUnits, writeInspector, type ItemUnits } from './awsWriteUnits.ts';

export interface PaymentBenchOptions {
  service: LocalService;
  /** Duration of each autocannon run. */
  seconds: number;
  log: (message: string) => void;
}

/** Payments counted one by one (each flow): every one takes the same path, so a few are enough. */
const countedPayments = 4;
const warmUpPayments = 8;
/** How many payments are in flight at once while timing 202 → RECONCILED, and for the end-to-end rate. */
const latencyConcurrency = 4;
const throughputConcurrency = 16;
/** A quiet system: no DynamoDB call and no event for this long (the stream poller passes every 200 ms). */
const quietMs = 400;

/** us-east-1 list prices used for the cost figures. */
export const prices = {
  dynamoWriteRequestUnit: 0.625 / 1e6,
  dynamoReadRequestUnit: 0.125 / 1e6,
  stepFunctionsTransition: 0.025 / 1000,
  lambdaRequest: 0.2 / 1e6,
  lambdaGbSecond: 0.0000166667,
  eventBridgeEvent: 1 / 1e6,
  sqsRequest: 0.4 / 1e6,
  httpApiRequest: 1 / 1e6,
};
export const lambdaMemoryGb = 0.5;
export const lambdaAssumedMs = 50;
export const sqsRequestsPerMessage = 3;

const corridor = findCorridor('USDC', 'MXN', 'MX')!;
const beneficiary = sampleBeneficiary(corridor);
const sendAmount = { amount: '10.00', currency: 'USDC' };
const paymentBody = (idempotencyKey: string, quoteId?: string) => ({
  idempotencyKey,
  corridor: { to: 'MXN', destinationCountry: 'MX' },
  sendAmount,
  recipientReference: 'bench',
  beneficiary,
  ...(quoteId ? { quoteId } : {}),
});

const taskStates = new Set(
  Object.entries(
    (JSON.parse(readFileSync(new URL('../statemachines/payment.asl.json', import.meta.url), 'utf8')) as { States: Record<string, { Type: string }> }).States,
  )
    .filter(([, state]) => state.Type === 'Task')
    .map(([name]) => name),
);

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
export const round = (value: number, digits = 3) => Number(value.toFixed(digits));
export const usd = (value: number) => Number(value.toPrecision(4));

export function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return { p50: round(at(50), 1), p99: round(at(99), 1), max: round(sorted.at(-1) ?? NaN, 1), samples: sorted.length };
}

const text = (value: unknown) => (typeof value === 'string' ? value : (value as { S?: string } | undefined)?.S);
/** The partition a call names: its key or item, or a Query's `:pk` (the runner's waitFor reads an execution by name alone). */
const partitionOf = (input: Record<string, unknown>) =>
  text(((input.Key ?? input.Item) as Record<string, unknown> | undefined)?.pk) ?? text((input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':pk']);

/**
 * Calls that are not the service's own in AWS: the local runner's execution records (Step Functions
 * keeps executions there) and the payout simulator's book (a real provider keeps its payouts).
 */
export function outsideTheService(input: Record<string, unknown>): 'runner' | 'simulator' | undefined {
  const pk = partitionOf(input);
  if (pk?.startsWith('EXECUTION#')) return 'runner';
  // Every simulator's book: SIMPAYOUT#, SIMCHAIN#, SIMONRAMP#, SIMOFFRAMP#, SIMCUSTODY#.
  if (pk?.startsWith('SIM')) return 'simulator';
  const values = Object.values((input.ExpressionAttributeValues ?? {}) as Record<string, unknown>).map(text);
  return values.includes(runningExecutionsKey) ? 'runner' : undefined;
}

// ---- DynamoDB units ------------------------------------------------------------------------------------
// DynamoDB Local reports ConsumedCapacity, but not always as AWS bills it: a TransactWriteItems of
// several small items is reported as 2 units where AWS charges 2 per item and KB, and reads of items
// that do not exist as 0 where AWS charges 1 (0.5 eventually consistent). So every call also gets the
// least AWS would charge for what it asked (put items sized from the request, everything else at one
// unit per item), and the figure used for cost is the larger of the two, call by call.

const writeUnitsOf = (item: unknown) => kbUnits(documentItemBytes(item as Record<string, unknown> | undefined));

/** CPU time (user + system, ms) of a process, from /proc (Linux); undefined elsewhere or without a pid. */
export function dynamoCpuMs(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime (fields 14 and 15 of proc(5)), in clock ticks of 10 ms.
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * CPU per operation of DynamoDB Local's JVM and of this process (the service, its runner, bus and
 * poller, and the bench's own client), and what their sum allows on this machine's cores at best.
 */
export function cpuMsPer(dynamoBefore: number | undefined, dynamoAfter: number | undefined, serviceCpu: NodeJS.CpuUsage, count: number) {
  const dynamodbLocal = dynamoBefore === undefined || dynamoAfter === undefined ? null : round((dynamoAfter - dynamoBefore) / count, 2);
  const service = round((serviceCpu.user + serviceCpu.system) / 1000 / count, 2);
  const cores = availableParallelism();
  return {
    dynamodbLocal,
    service,
    cores,
    perSecondAtMost: dynamodbLocal === null ? null : round((cores * 1000) / (dynamodbLocal + service), 1),
  };
}

/** The least AWS would bill for the call: what it asked for, at 1 KB per written item, 4 KB per read one. */
function awsFloor(record: CapacityRecord): { read: number; write: number } {
  const input = record.input as Record<string, any>;
  const perRead = input.ConsistentRead ? 1 : 0.5;
  switch (record.command) {
    case 'PutItem':
      return { read: 0, write: writeUnitsOf(input.Item) };
    case 'UpdateItem':
    case 'DeleteItem':
      return { read: 0, write: 1 };
    case 'TransactWriteItems':
      return {
        read: 0,
        write: ((input.TransactItems ?? []) as Record<string, any>[]).reduce((sum, item) => sum + 2 * (item.Put ? writeUnitsOf(item.Put.Item) : 1), 0),
      };
    case 'BatchWriteItem':
      return {
        read: 0,
        write: Object.values((input.RequestItems ?? {}) as Record<string, Record<string, any>[]>)
          .flat()
          .reduce((sum, request) => sum + (request.PutRequest ? writeUnitsOf(request.PutRequest.Item) : 1), 0),
      };
    case 'GetItem':
    case 'Query':
    case 'Scan':
      return { read: perRead, write: 0 };
    case 'BatchGetItem':
      return {
        read: Object.values((input.RequestItems ?? {}) as Record<string, { Keys?: unknown[]; ConsistentRead?: boolean }>).reduce(
          (sum, table) => sum + (table.Keys?.length ?? 0) * (table.ConsistentRead ? 1 : 0.5),
          0,
        ),
        write: 0,
      };
    case 'TransactGetItems':
      return { read: 2 * ((input.TransactItems ?? []) as unknown[]).length, write: 0 };
    default:
      return { read: 0, write: 0 };
  }
}

interface Units {
  calls: number;
  /** As DynamoDB Local reported them. */
  readUnits: number;
  writeUnits: number;
  /**
   * The larger of the reported units and the AWS floor, call by call: what the cost uses. Write calls
   * counted with their items read before and after (awsWriteUnits.ts) are counted as AWS bills them
   * (items at their size, index entries included), never under the floor.
   */
  awsReadUnits: number;
  awsWriteUnits: number;
  /** The larger of the reported units and the floor alone (the count before decision 138): an undercount of updates and index writes in transactions. */
  awsWriteUnitsFloor: number;
  /** Of awsWriteUnits, the index entries' writes, on the calls counted with their items. */
  awsIndexWriteUnits: number;
  /** Write calls counted with their items read before and after. */
  writeCallsAsBilled: number;
}
export interface Tally extends Units {
  failedCalls: number;
  byCommand: Record<string, Units>;
}
const emptyUnits = (): Units => ({ calls: 0, readUnits: 0, writeUnits: 0, awsReadUnits: 0, awsWriteUnits: 0, awsWriteUnitsFloor: 0, awsIndexWriteUnits: 0, writeCallsAsBilled: 0 });
export const emptyTally = (): Tally => ({ ...emptyUnits(), failedCalls: 0, byCommand: {} });

function addUnits(into: Units, from: Units) {
  into.calls += from.calls;
  into.readUnits += from.readUnits;
  into.writeUnits += from.writeUnits;
  into.awsReadUnits += from.awsReadUnits;
  into.awsWriteUnits += from.awsWriteUnits;
  into.awsWriteUnitsFloor += from.awsWriteUnitsFloor;
  into.awsIndexWriteUnits += from.awsIndexWriteUnits;
  into.writeCallsAsBilled += from.writeCallsAsBilled;
}

/** `asBilled`: the call's units item by item, from its items read before and after it (awsWriteUnits.ts). */
export function add(tally: Tally, record: CapacityRecord, asBilled?: ItemUnits[]) {
  // A failed call reports nothing; AWS still bills a refused conditional write, so its floor counts.
  const floor = awsFloor(record);
  const floorWrite = Math.max(record.writeUnits, floor.write);
  const billedWrite = asBilled?.reduce((sum, item) => sum + item.item + item.indexes, 0) ?? 0;
  const units: Units = {
    calls: 1,
    readUnits: record.readUnits,
    writeUnits: record.writeUnits,
    awsReadUnits: Math.max(record.readUnits, floor.read),
    awsWriteUnits: Math.max(floorWrite, billedWrite),
    awsWriteUnitsFloor: floorWrite,
    awsIndexWriteUnits: asBilled?.reduce((sum, item) => sum + item.indexes, 0) ?? 0,
    writeCallsAsBilled: asBilled ? 1 : 0,
  };
  if (record.failed) tally.failedCalls += 1;
  addUnits(tally, units);
  const name = record.failed ? `${record.command} (failed)` : record.command;
  addUnits((tally.byCommand[name] ??= emptyUnits()), units);
}

function merge(into: Tally, from: Tally) {
  addUnits(into, from);
  into.failedCalls += from.failedCalls;
  for (const [name, units] of Object.entries(from.byCommand)) addUnits((into.byCommand[name] ??= emptyUnits()), units);
}

function unitsPer(units: Units, count: number) {
  return {
    calls: round(units.calls / count, 2),
    readUnits: round(units.readUnits / count, 2),
    writeUnits: round(units.writeUnits / count, 2),
    awsReadUnits: round(units.awsReadUnits / count, 2),
    awsWriteUnits: round(units.awsWriteUnits / count, 2),
    awsWriteUnitsFloor: round(units.awsWriteUnitsFloor / count, 2),
    awsIndexWriteUnits: round(units.awsIndexWriteUnits / count, 2),
    writeCallsAsBilled: round(units.writeCallsAsBilled / count, 2),
  };
}

export function perItem(tally: Tally, count: number) {
  return {
    ...unitsPer(tally, count),
    failedCalls: round(tally.failedCalls / count, 2),
    byCommand: Object.fromEntries(
      Object.entries(tally.byCommand)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, units]) => [name, unitsPer(units, count)]),
    ),
  };
}

/** Events put on the bus by the outbox forwarder, and the rule deliveries (SQS messages in AWS) they make, until stopCounting. */
export function countBusEvents(bus: LocalService['bus']) {
  const events = { published: 0, publishCalls: 0, deliveries: 0, byType: {} as Record<string, number> };
  const originalPublish = bus.publish;
  bus.publish = async (entries: BusEntry[]) => {
    events.publishCalls += 1;
    for (const entry of entries) {
      events.published += 1;
      events.byType[entry.DetailType] = (events.byType[entry.DetailType] ?? 0) + 1;
      const shape = { source: entry.Source, 'detail-type': entry.DetailType, detail: JSON.parse(entry.Detail) as unknown };
      events.deliveries += eventRules.filter((rule) => matchesPattern(rule.pattern, shape)).length;
    }
    return originalPublish.call(bus, entries);
  };
  return { events, stopCounting: () => void (bus.publish = originalPublish) };
}

/**
 * Runs `fn` with the DynamoDB client's capacity counting off (COUNT_CAPACITY): what a figure times runs
 * as a deployed function does, without ReturnConsumedCapacity on every call and the tally of each.
 */
export async function uncounted<T>(fn: () => Promise<T>): Promise<T> {
  const previous = process.env.COUNT_CAPACITY;
  process.env.COUNT_CAPACITY = '0';
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.COUNT_CAPACITY;
    else process.env.COUNT_CAPACITY = previous;
  }
}

/** An approved organization with a billion USDC and limits out of the way: what a bench measures is the flow, not the limiter. */
export async function benchOrganization(service: LocalService, name: string) {
  const created = await onboardOrganization({ name, kybStatus: 'approved' });
  await service.runner.waitFor(created.walletExecution);
  const organizationId = created.organization.id;
  await creditDeposit({ organizationId, depositId: `bench-${Date.now()}-${Math.random().toString(36).slice(2)}`, amount: 1_000_000_000n * 1_000_000n, rail: 'wire', memo: 'bench funding' });
  await setRateLimits(organizationId, { burst: 100_000_000, perSecond: 1_000_000 });
  return { organizationId, headers: { authorization: `Bearer ${created.apiKey.apiKey}`, 'content-type': 'application/json' } };
}

export async function paymentFigures({ service, seconds, log }: PaymentBenchOptions) {
  // Sized by BENCH_SECONDS like the autocannon runs (5 s: 150 and 200 payments), so that
  // BENCH_SECONDS=3 keeps the whole bench within about three minutes on a small machine.
  const latencyPayments = Math.max(20, Math.round(30 * seconds));
  const throughputPayments = Math.max(32, Math.round(40 * seconds));
  const previousCapacityFlag = process.env.COUNT_CAPACITY;
  process.env.COUNT_CAPACITY = '1';
  // Zero simulated delays: Wait states are 0 s (startLocalService waitSeconds 0), payouts settle at once.
  delete process.env.PAYOUT_SETTLE_SECONDS;
  const { runner, bus } = service;

  // Every call is attributed to the phase it happens in; the runner's own records apart.
  let phase = 'idle';
  const tallies = new Map<string, Tally>();
  const tallyOf = (name: string) => tallies.get(name) ?? (tallies.set(name, emptyTally()), tallies.get(name)!);
  // The one-by-one counts read every written item before and after its write (not counted): writes are
  // then counted as AWS bills them. Not under load, where the reads would change what is measured.
  const inspector = writeInspector(() => /^(priced|quoted):/.test(phase));
  const stopInspecting = inspectCalls(inspector.inspect);
  const stopObserving = observeConsumedCapacity((record) => {
    const outside = outsideTheService(record.input);
    add(tallyOf(outside ? `${phase}:${outside}` : phase), record, inspector.unitsOf(record.input));
    // The request's last act is starting the workflow (the runner's conditional Put): what follows is the workflow's.
    if (outside === 'runner' && record.command === 'PutItem' && phase.endsWith(':request')) phase = phase.replace(/:request$/, ':after');
  });

  const { events, stopCounting } = countBusEvents(bus);

  try {
    log('payments: onboarding and funding an organization, lifting its rate limits');
    const { organizationId, headers } = await benchOrganization(service, 'Bench Payments Org');
    let seq = 0;
    const newKey = (label: string) => `bench-${label}-${Date.now().toString(36)}-${(seq += 1)}`;

    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      const json = (await response.json()) as Record<string, unknown>;
      return { status: response.status, body: json };
    };
    const pay = async (quoteId?: string, key = newKey('pay')) => {
      const answer = await post('/transactions', paymentBody(key, quoteId));
      if (answer.status !== 202) throw new Error(`POST /transactions answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return key;
    };
    const quote = async (idempotencyKey?: string) => {
      const answer = await post('/quotes', { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount, ...(idempotencyKey ? { idempotencyKey } : {}) });
      if (answer.status !== 200) throw new Error(`POST /quotes answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      return answer.body.quoteId as string;
    };
    const finished = async (transactionId: string) => {
      const outcome = await runner.waitFor(operationExecutionName('payment', organizationId, transactionId), 120_000);
      if (outcome.status !== 'SUCCEEDED') throw new Error(`payment ${transactionId} ended ${outcome.status}: ${outcome.error ?? ''}`);
      return outcome;
    };
    const reconciledAt = async (transactionId: string) => {
      const record = await getTransaction(organizationId, transactionId);
      const entry = record?.timeline.find((step) => step.state === 'RECONCILED') as { at?: string } | undefined;
      if (record?.state !== 'RECONCILED' || !entry?.at) throw new Error(`payment ${transactionId} is ${record?.state}, not RECONCILED`);
      return Date.parse(entry.at);
    };

    /** Every workflow done, every event delivered, and nothing moving for quietMs. */
    const quiesce = async () => {
      const started = performance.now();
      for (;;) {
        await runner.idle();
        await bus.idle();
        const calls = dynamoCallCount();
        const published = events.published;
        await pause(quietMs);
        if (calls === dynamoCallCount() && published === events.published) break;
      }
      return round((performance.now() - started) / 1000, 2);
    };

    log('payments: warming up');
    // A quote first: this process learns the write bucket's own limit (a one-time correction write).
    await quote();
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let i = 0; i < warmUpPayments / 4; i += 1) await finished(await pay());
    }));
    await quiesce();

    // ---- counts, one payment at a time in a quiet system ------------------------------------------------
    log(`payments: counting calls, capacity, transitions and events over ${countedPayments} payments of each flow`);
    const countFlow = async (name: string, withQuote: boolean) => {
      const eventsBefore = { ...events, byType: { ...events.byType } };
      const transitionsBefore = runner.stateTransitions;
      const callsBefore = dynamoCallCount();
      const histories: string[][] = [];
      for (let i = 0; i < countedPayments; i += 1) {
        await quiesce();
        const key = newKey(name);
        let quoteId: string | undefined;
        if (withQuote) {
          phase = `${name}:quote`;
          quoteId = await quote(key);
        }
        phase = `${name}:request`;
        await pay(quoteId, key);
        const outcome = await finished(key);
        histories.push(outcome.history);
        counted.push(key);
      }
      await quiesce();
      phase = 'idle';
      const transitions = runner.stateTransitions - transitionsBefore;
      const paths = [...new Set(histories.map((history) => history.join(' > ')))];
      const tasksEntered = histories.reduce((sum, history) => sum + history.filter((state) => taskStates.has(state)).length, 0);
      const eventsByType = Object.fromEntries(
        Object.entries(events.byType)
          .map(([type, count]) => [type, round((count - (eventsBefore.byType[type] ?? 0)) / countedPayments, 2)] as const)
          .filter(([, count]) => count > 0),
      );
      const request = tallyOf(`${name}:request`);
      const after = tallyOf(`${name}:after`);
      const total = emptyTally();
      merge(total, request);
      merge(total, after);
      const runnerCalls = emptyTally();
      const simulatorCalls = emptyTally();
      for (const part of ['quote', 'request', 'after']) {
        merge(runnerCalls, tallyOf(`${name}:${part}:runner`));
        merge(simulatorCalls, tallyOf(`${name}:${part}:simulator`));
      }
      return {
        payments: countedPayments,
        workflowPaths: paths,
        stateTransitionsPerPayment: round(transitions / countedPayments, 2),
        taskStatesPerPayment: round(tasksEntered / countedPayments, 2),
        outboxEventsPerPayment: round((events.published - eventsBefore.published) / countedPayments, 2),
        outboxEventsByType: eventsByType,
        ruleDeliveriesPerPayment: round((events.deliveries - eventsBefore.deliveries) / countedPayments, 2),
        localForwarderBatchesPerPayment: round((events.publishCalls - eventsBefore.publishCalls) / countedPayments, 2),
        dynamo: {
          ...(withQuote ? { quoteRequest: perItem(tallyOf(`${name}:quote`), countedPayments) } : {}),
          transactionRequest: perItem(request, countedPayments),
          afterTheRequest: perItem(after, countedPayments),
          paymentTotal: {
            ...perItem(total, countedPayments),
            note: 'the service\'s own calls for the payment (POST /transactions and everything after it): what the cost counts',
          },
          payoutSimulator: {
            ...perItem(simulatorCalls, countedPayments),
            note: 'the simulated payout provider\'s book (SIMPAYOUT# items): a real provider keeps its own, so they are left out of the cost',
          },
          localRunnerBookkeeping: {
            ...perItem(runnerCalls, countedPayments),
            note: 'execution records of the local ASL runner (start, outcome, waitFor reads, the funded-event duplicate start, the sweep for abandoned executions): Step Functions keeps these in AWS, so they are left out of the cost',
          },
          everythingCounted: {
            calls: round((dynamoCallCount() - callsBefore) / countedPayments, 2),
            note: 'every DynamoDB call of the process per payment (dynamoCallCount delta): all of the above, a check that nothing was missed',
          },
        },
      };
    };
    const counted: string[] = [];
    const pricedAtAcceptance = await countFlow('priced', false);
    const withQuote = await countFlow('quoted', true);
    // Checked after counting: the bench's own reads stay out of the figures.
    for (const key of counted) await reconciledAt(key);

    // GET /transactions/:id, as an integrator polling would call it.
    phase = 'get';
    const polled = await pay();
    await finished(polled);
    await quiesce();
    // One GET first: this process learns the read bucket's own limit (a one-time correction write).
    await (await fetch(`${service.url}/transactions/${polled}`, { headers })).arrayBuffer();
    phase = 'get:request';
    for (let i = 0; i < 20; i += 1) {
      const response = await fetch(`${service.url}/transactions/${polled}`, { headers });
      await response.arrayBuffer();
    }
    phase = 'idle';
    const getTransactionCalls = perItem(tallyOf('get:request'), 20);

    // ---- 202 → RECONCILED ----------------------------------------------------------------------------
    log(`payments: ${latencyPayments} payments, ${latencyConcurrency} at a time, from the 202 to RECONCILED`);
    await quiesce();
    const latency = async (count: number, concurrency: number) => {
      const recorded: number[] = [];
      const observed: number[] = [];
      const follow = async () => {
        const key = await pay();
        const accepted = performance.now();
        const acceptedWall = Date.now();
        await finished(key);
        observed.push(performance.now() - accepted);
        recorded.push((await reconciledAt(key)) - acceptedWall);
      };
      await pMap(Array.from({ length: count }), follow, { concurrency });
      return { recorded, observed };
    };
    const e2e = await uncounted(() => latency(latencyPayments, latencyConcurrency));
    await uncounted(quiesce);

    // ---- end-to-end rate --------------------------------------------------------------------------------
    /** Payments sent `throughputConcurrency` at a time, each followed to its end; when the first was sent, the last accepted and the last finished. */
    const endToEnd = async (count: number) => {
      const started = performance.now();
      let lastAccepted = started;
      let lastDone = started;
      const inFlight: Promise<void>[] = [];
      const perPayment: number[] = [];
      const keys: string[] = [];
      const send = async () => {
        const key = await pay();
        keys.push(key);
        const accepted = performance.now();
        lastAccepted = Math.max(lastAccepted, accepted);
        inFlight.push(finished(key).then(() => {
          const done = performance.now();
          perPayment.push(done - accepted);
          lastDone = Math.max(lastDone, done);
        }));
      };
      await pMap(Array.from({ length: count }), send, { concurrency: throughputConcurrency });
      await Promise.all(inFlight);
      return { started, lastAccepted, lastDone, perPayment, keys };
    };
    // Timed as the service runs, without the bench's capacity counting: ReturnConsumedCapacity on every
    // call and its tally cost DynamoDB Local and this process a fifth of their CPU a payment, which no
    // deployed function spends. The same run again, untimed, counts units and failed calls under load.
    log(`payments: ${throughputPayments} payments at concurrency ${throughputConcurrency}, first POST to last RECONCILED`);
    const callsBefore = dynamoCallCount();
    const transitionsBefore = runner.stateTransitions;
    const eventsBefore = events.published;
    const cpuBefore = { dynamodbLocal: dynamoCpuMs(service.dynamoPid), service: process.cpuUsage() };
    const { started, lastAccepted, lastDone, perPayment, keys: timedKeys } = await uncounted(() => endToEnd(throughputPayments));
    const elapsedSeconds = (lastDone - started) / 1000;
    const serviceCpu = process.cpuUsage(cpuBefore.service);
    const dynamoCpuAfter = dynamoCpuMs(service.dynamoPid);
    const drainSeconds = await uncounted(quiesce);
    // The goal counts RECONCILED payments: each one is read back (after the timing) to say so.
    const notReconciled = (await pMap(timedKeys, (key) => getTransaction(organizationId, key), { concurrency: 8 })).filter((record) => record?.state !== 'RECONCILED');
    if (notReconciled.length > 0) throw new Error(`${notReconciled.length} of the timed payments are not RECONCILED`);
    const callsAll = dynamoCallCount() - callsBefore;
    const transitions = runner.stateTransitions - transitionsBefore;
    const outboxEvents = events.published - eventsBefore;
    log(`payments: the same ${throughputPayments} again, untimed, counting capacity under load`);
    phase = 'throughput';
    await endToEnd(throughputPayments);
    await quiesce();
    phase = 'idle';
    const underLoad = perItem(tallyOf('throughput'), throughputPayments);
    const throughput = {
      payments: throughputPayments,
      concurrency: throughputConcurrency,
      firstPostToLastReconciledSeconds: round(elapsedSeconds, 2),
      paymentsPerSecond: round(throughputPayments / elapsedSeconds, 1),
      reconciledReadBack: timedKeys.length,
      intakePerSecond: round(throughputPayments / ((lastAccepted - started) / 1000), 1),
      acceptedToFinishedMs: percentiles(perPayment),
      // Includes the 0.4 s of quiet that ends the wait.
      eventsSettledAfterLastReconciledSeconds: drainSeconds,
      cpuMsPerPayment: { ...cpuMsPer(cpuBefore.dynamodbLocal, dynamoCpuAfter, serviceCpu, throughputPayments), note: 'from the first POST to the last RECONCILED; perSecondAtMost: the cores over the sum, the rate this CPU per payment allows with every core busy' },
      perPaymentUnderLoad: {
        dynamoCallsAll: round(callsAll / throughputPayments, 2),
        dynamoCalls: underLoad.calls,
        readUnits: underLoad.readUnits,
        writeUnits: underLoad.writeUnits,
        awsReadUnits: underLoad.awsReadUnits,
        awsWriteUnits: underLoad.awsWriteUnits,
        failedCalls: underLoad.failedCalls,
        failedByCommand: Object.fromEntries(
          Object.entries(underLoad.byCommand).filter(([name]) => name.endsWith('(failed)')).map(([name, units]) => [name, units.calls]),
        ),
        stateTransitions: round(transitions / throughputPayments, 2),
        outboxEvents: round(outboxEvents / throughputPayments, 2),
        note: 'dynamoCallsAll, stateTransitions and outboxEvents over the timed run; the rest over its untimed twin with capacity counted, after every event was delivered; local runner and payout simulator calls left out (dynamoCallsAll keeps them); a cross-check of the one-by-one counts, with what concurrency adds (failed calls: conditional writes that lost a race, retried). awsWriteUnits here is the floor only (no item is read before and after its write under load): it misses index writes and updates over 1 KB inside transactions; the figure as AWS bills it is perPayment.*.dynamo.paymentTotal.awsWriteUnits, which the dashboard reads',
      },
    };

    // ---- autocannon ------------------------------------------------------------------------------------
    log(`payments: autocannon on POST /quotes and POST /transactions, ${seconds}s per run`);
    const cannon = async (path: string, body: unknown, connections: number) => {
      const result = await autocannon({
        url: `${service.url}${path}`,
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        // [<id>] in the body becomes a fresh id per request: every payment has its own idempotency key.
        idReplacement: true,
        connections,
        duration: seconds,
        workers: 1,
      });
      const figures = {
        connections,
        p50Ms: result.latency.p50,
        p99Ms: result.latency.p99,
        requestsPerSecond: round(result.requests.average, 1),
        requests: result.requests.total,
        non2xx: result.non2xx,
        errors: result.errors,
      };
      // Let what the run started finish before the next run (or the end of the bench).
      return { ...figures, settledAfterRunSeconds: await quiesce() };
    };
    const quoteBody = { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount };
    const transactionBody = paymentBody('bench-ac-[<id>]');
    const http = {
      quotes: { c1: await uncounted(() => cannon('/quotes', quoteBody, 1)), c16: await uncounted(() => cannon('/quotes', quoteBody, 16)) },
      transactions: {
        c1: await uncounted(() => cannon('/transactions', transactionBody, 1)),
        c16: await uncounted(() => cannon('/transactions', transactionBody, 16)),
        note: 'each accepted payment runs its workflow in this same process while the load goes on; settledAfterRunSeconds is how long the payments and events the run started took to finish after it (the last 0.4 s of it is the quiet that ends the wait)',
      },
    };

    // ---- cost per 1,000 payments -----------------------------------------------------------------------
    const cost = (flow: Awaited<ReturnType<typeof countFlow>>, quoted: boolean) => {
      const per = 1000;
      const apiInvocations = quoted ? 2 : 1;
      const invocations = {
        api: apiInvocations,
        workflowTasks: flow.taskStatesPerPayment,
        outboxForwarder: flow.outboxEventsPerPayment,
        eventTargets: flow.ruleDeliveriesPerPayment,
      };
      const lambdaInvocations = Object.values(invocations).reduce((sum, value) => sum + value, 0);
      const dynamoTotals = flow.dynamo.paymentTotal;
      const quoteTotals = flow.dynamo.quoteRequest;
      const writeUnits = dynamoTotals.awsWriteUnits + (quoteTotals?.awsWriteUnits ?? 0);
      const readUnits = dynamoTotals.awsReadUnits + (quoteTotals?.awsReadUnits ?? 0);
      const reportedWriteUnits = dynamoTotals.writeUnits + (quoteTotals?.writeUnits ?? 0);
      const reportedReadUnits = dynamoTotals.readUnits + (quoteTotals?.readUnits ?? 0);
      const sqsMessages = flow.ruleDeliveriesPerPayment;
      const lines = {
        dynamodb: {
          writeRequestUnits: round(writeUnits * per, 0),
          readRequestUnits: round(readUnits * per, 0),
          asDynamoDbLocalReports: { writeRequestUnits: round(reportedWriteUnits * per, 0), readRequestUnits: round(reportedReadUnits * per, 0) },
          usd: usd(per * (writeUnits * prices.dynamoWriteRequestUnit + readUnits * prices.dynamoReadRequestUnit)),
          price: 'on-demand: $0.625 per million write request units, $0.125 per million read request units',
        },
        stepFunctions: {
          stateTransitions: round(flow.stateTransitionsPerPayment * per, 0),
          usd: usd(per * flow.stateTransitionsPerPayment * prices.stepFunctionsTransition),
          price: 'Standard: $0.025 per 1,000 state transitions',
        },
        lambda: {
          invocations: round(lambdaInvocations * per, 0),
          invocationsPerPayment: invocations,
          requestsUsd: usd(per * lambdaInvocations * prices.lambdaRequest),
          computeUsd: usd(per * lambdaInvocations * lambdaMemoryGb * (lambdaAssumedMs / 1000) * prices.lambdaGbSecond),
          usd: usd(per * lambdaInvocations * (prices.lambdaRequest + lambdaMemoryGb * (lambdaAssumedMs / 1000) * prices.lambdaGbSecond)),
          price: `$0.20 per million requests + $0.0000166667 per GB-second; ${lambdaMemoryGb * 1024} MB, ${lambdaAssumedMs} ms assumed per invocation`,
        },
        eventBridge: {
          events: round(flow.outboxEventsPerPayment * per, 0),
          usd: usd(per * flow.outboxEventsPerPayment * prices.eventBridgeEvent),
          price: 'custom events: $1.00 per million events published',
        },
        sqs: {
          messages: round(sqsMessages * per, 0),
          requests: round(sqsMessages * sqsRequestsPerMessage * per, 0),
          usd: usd(per * sqsMessages * sqsRequestsPerMessage * prices.sqsRequest),
          price: `$0.40 per million requests; ${sqsRequestsPerMessage} per message (send, receive, delete)`,
        },
        apiGateway: {
          requests: apiInvocations * per,
          usd: usd(per * apiInvocations * prices.httpApiRequest),
          price: 'HTTP API: $1.00 per million requests (not in the brief\'s list; the stack deploys an HTTP API)',
        },
      };
      const total = Object.values(lines).reduce((sum, line) => sum + line.usd, 0);
      return { ...lines, totalUsd: usd(total), totalUsdWithoutApiGateway: usd(total - lines.apiGateway.usd) };
    };

    return {
      settings: {
        waitStateSeconds: 0,
        payoutSettleSeconds: 0,
        sendAmount: `${sendAmount.amount} ${sendAmount.currency}`,
        corridor: 'USDC → MXN (MX)',
      },
      http,
      reconciliation: {
        payments: latencyPayments,
        concurrency: latencyConcurrency,
        acceptedToReconciledMs: {
          ...percentiles(e2e.recorded),
          note: 'from the 202 reaching the client to the time the reconcile step stamps on the RECONCILED entry of the payment\'s timeline, just before its write commits (same clock, millisecond resolution)',
        },
        acceptedToExecutionFinishedMs: {
          ...percentiles(e2e.observed),
          note: 'from the 202 to the end of the workflow execution as the runner sees it (after RECONCILED: its Done state and execution record)',
        },
      },
      throughput,
      perPayment: {
        pricedAtAcceptance,
        withQuote,
        getTransaction: { ...getTransactionCalls, note: 'one GET /transactions/:id (polling), per request' },
      },
      costPer1000Payments: {
        pricedAtAcceptance: cost(pricedAtAcceptance, false),
        withQuote: cost(withQuote, true),
      },
      deadLetters: bus.deadLetters.length,
      assumptions: [
        'us-east-1 list prices, no free tier; counts per payment measured one payment at a time on the happy path (RECONCILED) with zero simulated delays',
        'DynamoDB on-demand request units, call by call: the larger of the ConsumedCapacity DynamoDB Local reports (TOTAL: table and indexes) and the least AWS bills for the request (2 write units per item of a transaction, per KB of a put item; 1 read unit per item asked for, 0.5 eventually consistent, found or not). DynamoDB Local undercounts multi-item transactions (it reports 2 units for a 4-item TransactWriteItems) and reads of absent items (0). On the one-by-one counts every write call is also counted as AWS bills it, from its items read before and after it by the bench (strongly consistent GetItems, not counted): each item at the larger of its sizes, twice in a transaction, plus each global index entry it puts, changes or deletes at its projected size (not doubled: DynamoDB writes index entries after the transaction); awsWriteUnitsFloor keeps the floor alone, awsIndexWriteUnits the index part. Under load only the floor is counted; the units as reported are beside (asDynamoDbLocalReports, readUnits/writeUnits)',
        'A failed call (conditional check, transaction conflict) reports no units; it is counted at its floor, as AWS bills refused conditional writes. None fail on the counted path; under load some transactions conflict and are retried (throughput.perPaymentUnderLoad)',
        'Left out of the DynamoDB units: the local runner\'s execution records (Step Functions keeps executions in AWS) and the payout simulator\'s book (a real provider keeps its own); both are shown under perPayment.*.dynamo. DynamoDB Streams reads by the Lambda event source mapping are free',
        'Step Functions Standard: one transition per state entered (Task, Choice, Wait, Succeed alike); retries would add transitions, none happen on this path',
        `Lambda: invocations = 1 per API request + 1 per Task state entered + 1 outbox forwarder invocation per outbox event + 1 target invocation per rule delivery; the forwarder (stream batches up to 100, no batching window: at most four invocations a second per shard) and the queue targets (batches of 10) are batched in AWS, so these are upper bounds at low traffic; ${lambdaMemoryGb * 1024} MB, ${lambdaAssumedMs} ms billed per invocation (an assumption, not measured; the stack deploys ARM_64, whose list price $0.0000133334 per GB-second is 20% lower than the x86 price used)`,
        'EventBridge: each outbox event is one custom event published (PutEvents from the forwarder); rule matching and delivery to SQS are not charged separately',
        `SQS: each event rule target is fed by its own queue: messages = events × rules matched; ${sqsRequestsPerMessage} requests per message (SendMessage by EventBridge, ReceiveMessage, DeleteMessage), an upper bound (receives and deletes are batched by the event source mapping); the pollers' empty receives are a fixed cost per queue, not per payment; SQS-managed encryption, so no KMS charge`,
        'API Gateway HTTP API: $1.00 per million requests, one per API call (POST /quotes, POST /transactions); polling GET /transactions/:id is left out (integrators can take webhooks), its per-request DynamoDB calls are under perPayment.getTransaction',
        'Left out: DynamoDB storage and backups, CloudWatch Logs, X-Ray traces, Step Functions logging, data transfer, the fixed monthly cost of idle queue polling',
      ],
    };
  } finally {
    stopInspecting();
    inspector.close();
    stopObserving();
    stopCounting();
    if (previousCapacityFlag === undefined) delete process.env.COUNT_CAPACITY;
    else process.env.COUNT_CAPACITY = previousCapacityFlag;
  }
}
