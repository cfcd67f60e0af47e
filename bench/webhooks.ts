/**
 * Webhooks on the local stack, for `npm run bench` (bench/run.ts calls webhookFigures):
 * - event committed → first delivery attempt received (the event's own `timestamp`, stamped in the
 *   transaction that commits it, to the receiver's clock on the same machine), p50 and p99;
 * - WEBHOOK_BENCH_PAYMENTS payments (default 1,000) with a receiver that fails the first two
 *   attempts of every event: every event delivered, none lost, every duplicate a retry of the same
 *   `webhook-id` (each id arrives exactly three times), every attempt verified with
 *   `standardwebhooks`; the time until the last event was delivered;
 * - per delivered event: workflow state transitions, DynamoDB calls and capacity of the delivery
 *   (the webhook items), and the AWS list-price cost of a delivery.
 * Waits are at zero (WAIT_MAX_SECONDS=0 in the bench's service), so the retries run at once.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import pMap from 'p-map';
import { Webhook } from 'standardwebhooks';
import type { LocalService } from '../lib/local/service.ts';
import { observeConsumedCapacity } from '#store/client.ts';
import { getExecution } from '#store/executions.ts';
import { deliveryExecutionName, deliveryWorkflow } from '#operations/webhook/delivery.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { add, benchOrganization, emptyTally, lambdaAssumedMs, lambdaMemoryGb, percentiles, perItem, prices, round, sqsRequestsPerMessage, usd } from './payments.ts';

export interface WebhookBenchOptions {
  service: LocalService;
  log: (message: string) => void;
}

const corridor = findCorridor('USDC', 'MXN', 'MX')!;
const beneficiary = sampleBeneficiary(corridor);
/** KMS list price: $0.03 per 10,000 requests (one Decrypt per attempt; one GenerateDataKey per secret issued). */
const kmsRequest = 0.03 / 10_000;

interface Arrival {
  id: string;
  status: number;
  receivedAt: number;
  eventTimestamp: number;
  verified: boolean;
}

/** A receiver on 127.0.0.1 that verifies every delivery and answers `answer(id, seen)`. */
async function receiver(secretOf: () => string, answer: (seen: number) => number) {
  const arrivals: Arrival[] = [];
  const seen = new Map<string, number>();
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const receivedAt = Date.now();
      const id = String(request.headers['webhook-id']);
      let verified = false;
      let eventTimestamp = NaN;
      try {
        const payload = new Webhook(secretOf()).verify(body, request.headers as Record<string, string>) as { timestamp: string };
        verified = true;
        eventTimestamp = Date.parse(payload.timestamp);
      } catch {
        // Counted as unverified.
      }
      const count = (seen.get(id) ?? 0) + 1;
      seen.set(id, count);
      const status = answer(count);
      arrivals.push({ id, status, receivedAt, eventTimestamp, verified });
      response.writeHead(status).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    arrivals,
    seen,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

async function sendPayments(service: LocalService, headers: Record<string, string>, count: number, concurrency: number, label: string): Promise<string[]> {
  const ids: string[] = [];
  const send = async (index: number) => {
    const idempotencyKey = `${label}-${Date.now().toString(36)}-${index}`;
    const body = JSON.stringify({ idempotencyKey, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.00', currency: 'USDC' }, recipientReference: 'bench', beneficiary });
    let response = await fetch(`${service.url}/transactions`, { method: 'POST', headers, body });
    // A 503 or a function's timeout (500) on a loaded machine is retried with the same key, which idempotency makes safe.
    for (let retry = 1; (response.status === 503 || response.status === 500) && retry <= 5; retry += 1) {
      await response.text();
      await new Promise((resolve) => setTimeout(resolve, 200 * retry));
      response = await fetch(`${service.url}/transactions`, { method: 'POST', headers, body });
    }
    if (response.status !== 202) throw new Error(`POST /transactions answered ${response.status}: ${await response.text()}`);
    ids.push(idempotencyKey);
  };
  await pMap(Array.from({ length: count }, (_, index) => index + 1), send, { concurrency });
  return ids;
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function register(service: LocalService, headers: Record<string, string>, url: string): Promise<string> {
  const response = await fetch(`${service.url}/webhooks/endpoint`, { method: 'PUT', headers, body: JSON.stringify({ url }) });
  const body = (await response.json()) as { secret?: string };
  if (response.status !== 200 || !body.secret) throw new Error(`PUT /webhooks/endpoint answered ${response.status}`);
  return body.secret;
}

/** Every event id of the organization's events list, walking every page. */
async function listedEvents(service: LocalService, headers: Record<string, string>): Promise<{ id: string; deliveryStatus: string }[]> {
  const events: { id: string; deliveryStatus: string }[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `?limit=500&cursor=${encodeURIComponent(cursor)}` : '?limit=500';
    const page = (await (await fetch(`${service.url}/events${query}`, { headers })).json()) as { events: { id: string; deliveryStatus: string }[]; nextCursor: string | null };
    events.push(...page.events);
    cursor = page.nextCursor;
  } while (cursor);
  return events;
}

export async function webhookFigures({ service, log }: WebhookBenchOptions) {
  const previousCapacityFlag = process.env.COUNT_CAPACITY;
  process.env.COUNT_CAPACITY = '1';
  try {
    return await measure({ service, log });
  } finally {
    if (previousCapacityFlag === undefined) delete process.env.COUNT_CAPACITY;
    else process.env.COUNT_CAPACITY = previousCapacityFlag;
  }
}

async function measure({ service, log }: WebhookBenchOptions) {
  const payments = Number(process.env.WEBHOOK_BENCH_PAYMENTS ?? 1000);
  const latencyPayments = 40;

  log('webhooks: first-attempt latency over healthy deliveries');
  const latencyOrg = await benchOrganization(service, 'Bench Webhooks Latency Org');
  let latencySecret = '';
  const healthy = await receiver(() => latencySecret, () => 204);
  let latency;
  try {
    latencySecret = await register(service, latencyOrg.headers, healthy.url);
    await sendPayments(service, latencyOrg.headers, latencyPayments, 4, 'hook-latency');
    await until(() => healthy.seen.size >= latencyPayments * 2, 120_000, 'healthy deliveries');
    const first = new Map<string, Arrival>();
    for (const arrival of healthy.arrivals) if (!first.has(arrival.id)) first.set(arrival.id, arrival);
    // A first attempt that succeeds is made by the webhook starter alone: no delivery execution (decision 132).
    let executions = 0;
    for (const id of first.keys()) if (await getExecution(deliveryExecutionName({ organizationId: latencyOrg.organizationId, eventId: id, redelivery: 0 }), deliveryWorkflow)) executions += 1;
    latency = {
      events: first.size,
      committedToFirstAttemptMs: percentiles([...first.values()].map((arrival) => arrival.receivedAt - arrival.eventTimestamp)),
      allVerified: healthy.arrivals.every((arrival) => arrival.verified),
      deliveryExecutions: executions,
    };
  } finally {
    await healthy.close();
  }
  log(`webhooks: committed → first attempt ${JSON.stringify(latency.committedToFirstAttemptMs)}`);

  log(`webhooks: ${payments} payments, the receiver failing the first two attempts of every event`);
  const org = await benchOrganization(service, 'Bench Webhooks Retry Org');
  let secret = '';
  const flaky = await receiver(() => secret, (seen) => (seen <= 2 ? 503 : 200));
  const tally = emptyTally();
  const stopObserving = observeConsumedCapacity((record) => {
    const key = (record.input.Key ?? record.input.Item) as { sk?: unknown } | undefined;
    if (typeof key?.sk === 'string' && key.sk.startsWith('WEBHOOK_')) add(tally, record);
  });
  try {
    secret = await register(service, org.headers, flaky.url);
    const started = performance.now();
    await sendPayments(service, org.headers, payments, 16, 'hook-retry');
    const sentMs = performance.now() - started;
    const delivered = () => [...flaky.arrivals].filter((arrival) => arrival.status === 200).length;
    await until(() => delivered() >= payments * 2, Math.max(600_000, payments * 600), `${payments * 2} delivered events`);
    const allDeliveredMs = performance.now() - started;
    await service.bus.idle();

    const listed = await listedEvents(service, org.headers);
    const receivedIds = new Set(flaky.arrivals.map((arrival) => arrival.id));
    const lost = listed.filter((event) => !receivedIds.has(event.id));
    const perId = [...flaky.seen.values()];
    const unexpected = flaky.arrivals.filter((arrival) => !listed.some((event) => event.id === arrival.id));

    log('webhooks: reading delivery executions for their state transitions');
    const organizationId = org.organizationId;
    let transitions = 0;
    for (const event of listed) {
      const execution = await getExecution(deliveryExecutionName({ organizationId, eventId: event.id, redelivery: 0 }), deliveryWorkflow);
      transitions += execution?.history?.length ?? 0;
    }
    const events = listed.length;
    const attempts = flaky.arrivals.length;
    const dynamo = perItem(tally, events);
    const perEvent = {
      stepFunctions: (transitions / events) * prices.stepFunctionsTransition,
      // One Lambda invocation per attempt: the rule target makes the first, a Task each later one.
      lambda: (attempts / events) * (prices.lambdaRequest + lambdaMemoryGb * (lambdaAssumedMs / 1000) * prices.lambdaGbSecond),
      sqs: sqsRequestsPerMessage * prices.sqsRequest,
      kms: (attempts / events) * kmsRequest,
      dynamo: dynamo.awsReadUnits * prices.dynamoReadRequestUnit + dynamo.awsWriteUnits * prices.dynamoWriteRequestUnit,
    };
    const total = Object.values(perEvent).reduce((sum, value) => sum + value, 0);
    return {
      latency,
      retries: {
        payments,
        events,
        eventsDelivered: listed.filter((event) => event.deliveryStatus === 'delivered').length,
        eventsLost: lost.length,
        attemptsReceived: attempts,
        attemptsPerEvent: { min: Math.min(...perId), max: Math.max(...perId) },
        deliveriesOfUnknownIds: unexpected.length,
        everyAttemptVerified: flaky.arrivals.every((arrival) => arrival.verified),
        postSeconds: round(sentMs / 1000, 1),
        allDeliveredSeconds: round(allDeliveredMs / 1000, 1),
      },
      perDeliveredEvent: {
        stateTransitions: round(transitions / events, 2),
        dynamo,
        awsCostUsd: { ...Object.fromEntries(Object.entries(perEvent).map(([name, value]) => [name, usd(value)])), total: usd(total), per1000: usd(total * 1000) },
        notes: [
          'Three attempts per event (two failures, then the success): the first made by the webhook starter, the two retries by the delivery execution it starts after the first failure (decision 132). A healthy receiver takes one attempt, made by the starter: no execution, no transition, one Lambda invocation, one KMS Decrypt (per organization and batch).',
          'Lambda at 512 MB and an assumed 50 ms per invocation (the receiver answers at once); the outbox event and its bus put are the payment\'s, counted in its own figures.',
          'DynamoDB: the calls on webhook items (endpoint read, event kept, attempts appended), the larger of DynamoDB Local\'s reported units and the AWS floor.',
        ],
      },
    };
  } finally {
    stopObserving();
    await flaky.close();
  }
}
