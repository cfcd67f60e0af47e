import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { eventually, until } from '../support/eventually.ts';
import { startReceiver, verify, type Receiver } from '../support/webhookReceiver.ts';
import { inviteAndAccept, useTemporaryOutbox } from '../support/team.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { maxAttempts } from '#domain/webhookRetries.ts';
import { dynamo, tableName } from '#store/client.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '#store/keys.ts';
import { getExecution } from '#store/executions.ts';
import { deliveryExecutionName, deliveryWorkflow } from '#operations/webhook/delivery.ts';
import { reloadConfig } from '#platform/config.ts';
import { useWorkflowEngine, workflowEngine } from '#platform/workflow.ts';
import { newOutboxEvent } from '#store/outbox.ts';
import { eventSource } from '#contract/events.ts';

/**
 * Webhooks end to end: a real receiver on 127.0.0.1, real payments through HTTP, the delivery
 * workflow on the local runner, every delivery verified with the `standardwebhooks` package as an
 * integrator's receiver would. Waits are capped at 0 s here (WAIT_MAX_SECONDS), so the whole retry
 * schedule runs through its Wait states at once; the five-day disable window is 2 s in this file.
 */
let service: LocalService;
let org: TestOrganization;
let receiver: Receiver;
let seq = 0;

const mx = findCorridor('USDC', 'MXN', 'MX')!;
const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;

async function fundedOrganization(name: string): Promise<TestOrganization> {
  const created = await createTestOrganization(service, 'approved', name);
  await creditDeposit({ organizationId: created.organizationId, depositId: key('dep'), amount: 100_000n * 1_000_000n, rail: 'wire', memo: 'test deposit' });
  await setRateLimits(created.organizationId, { burst: 100_000, perSecond: 10_000 });
  return created;
}

/** Sends a payment and answers its id once it is RECONCILED (both of its webhook events happened by then). */
async function reconciledPayment(apiKey: string): Promise<string> {
  const { status, body } = await call(service, 'POST', '/transactions', {
    apiKey,
    body: {
      idempotencyKey: key('pay'),
      corridor: { to: 'MXN', destinationCountry: 'MX' },
      sendAmount: { amount: '100.00', currency: 'USDC' },
      recipientReference: 'invoice 42',
      beneficiary: sampleBeneficiary(mx),
    },
  });
  expect(status, JSON.stringify(body)).toBe(202);
  const transactionId = body.transactionId as string;
  await until(
    async () => (await call(service, 'GET', `/transactions/${transactionId}`, { apiKey })).body,
    (tx) => tx.state === 'RECONCILED',
    { what: `payment ${transactionId} to reconcile` },
  );
  return transactionId;
}

/** The event of that type about that payment, once GET /events lists it. */
async function eventOf(apiKey: string, transactionId: string, type: string): Promise<any> {
  return eventually(
    async () => {
      const { body } = await call(service, 'GET', `/events?type=${type}&limit=50`, { apiKey });
      for (const summary of body.events) {
        const detail = (await call(service, 'GET', `/events/${summary.id}`, { apiKey })).body;
        if (detail.payload.data.transactionId === transactionId) return detail;
      }
      return undefined;
    },
    { what: `${type} of ${transactionId} in GET /events` },
  );
}

/** The event detail once its delivery has ended (any status but pending/delivering). */
async function settledEvent(apiKey: string, eventId: string, done = (detail: any) => !['pending', 'delivering'].includes(detail.deliveryStatus)): Promise<any> {
  return until(async () => (await call(service, 'GET', `/events/${eventId}`, { apiKey })).body, done, { what: `event ${eventId} delivery to end` });
}

async function register(apiKey: string, body: Record<string, unknown>) {
  return call(service, 'PUT', '/webhooks/endpoint', { apiKey, body });
}

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await fundedOrganization('Webhook Org');
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await service?.stop();
});

describe('the endpoint', () => {
  it('is 404 until registered; the first PUT issues a secret once; GET shows a hint, never the secret', async () => {
    const fresh = await fundedOrganization('Fresh Org');
    expect((await call(service, 'GET', '/webhooks/endpoint', { apiKey: fresh.apiKey })).status).toBe(404);
    expect((await call(service, 'DELETE', '/webhooks/endpoint', { apiKey: fresh.apiKey })).status).toBe(404);

    const put = await register(fresh.apiKey, { url: `${receiver.url}/fresh` });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ url: `${receiver.url}/fresh`, status: 'enabled', disabledReason: null, previousSecretExpiresAt: null });
    expect(put.body.events).toHaveLength(7);
    expect(put.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);

    const got = await call(service, 'GET', '/webhooks/endpoint', { apiKey: fresh.apiKey });
    expect(got.status).toBe(200);
    expect(got.body.secret).toBeUndefined();
    expect(got.body.secretHint).toBe(put.body.secret.replace(/=+$/, '').slice(-4));
    expect(got.body.secretHint).toMatch(/^[A-Za-z0-9+/]{4}$/);
    expect(got.body.url).toBe(`${receiver.url}/fresh`);

    // Not in the organization item every request reads, and sealed where it is kept.
    const organization = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.organization(fresh.organizationId) }));
    expect(JSON.stringify(organization.Item)).not.toContain(put.body.secret);
    const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.webhookEndpoint(fresh.organizationId) }));
    expect(JSON.stringify(stored.Item)).not.toContain(put.body.secret);
    expect(JSON.stringify(stored.Item)).not.toContain(put.body.secret.slice('whsec_'.length));
  });

  it('refuses bad bodies with 400 validation and changes nothing', async () => {
    const before = (await register(org.apiKey, { url: `${receiver.url}/main` })).body;
    for (const body of [
      {},
      { url: 'not a url' },
      { url: 'ftp://example.com/hook' },
      { url: 'http://user:pass@127.0.0.1/hook' },
      { url: `${receiver.url}/x`, events: [] },
      { url: `${receiver.url}/x`, events: ['transaction.funded'] },
      { url: `${receiver.url}/x`, rotateSecret: 'yes' },
      { url: `${receiver.url}/x`, extra: true },
      { url: `https://example.com/${'a'.repeat(2048)}` },
    ]) {
      const { status, body: answer } = await register(org.apiKey, body);
      expect(status, JSON.stringify(body)).toBe(400);
      expect(answer.error).toBe('validation');
    }
    const after = (await call(service, 'GET', '/webhooks/endpoint', { apiKey: org.apiKey })).body;
    expect(after.updatedAt).toBe(before.updatedAt);
    expect(after.url).toBe(`${receiver.url}/main`);
  });
});

describe('delivery', () => {
  let secret: string;

  beforeAll(async () => {
    await call(service, 'DELETE', '/webhooks/endpoint', { apiKey: org.apiKey });
    secret = (await register(org.apiKey, { url: `${receiver.url}/main` })).body.secret;
    receiver.respond = () => ({ status: 200 });
  });

  it('a payment sends transaction.paid_out and transaction.reconciled, signed, the data its GET answers; only the seven types are listed', async () => {
    const transactionId = await reconciledPayment(org.apiKey);
    const paidOut = await eventOf(org.apiKey, transactionId, 'transaction.paid_out');
    const reconciled = await eventOf(org.apiKey, transactionId, 'transaction.reconciled');
    for (const event of [paidOut, reconciled]) {
      const [delivery] = await eventually(async () => (receiver.of(event.id).length ? receiver.of(event.id) : undefined), { what: `delivery of ${event.id}` });
      const payload = verify(delivery!, secret);
      expect(payload.type).toBe(event.type);
      expect(payload.data.transactionId).toBe(transactionId);
      expect(delivery!.body).toBe(JSON.stringify(event.payload));
      expect(delivery!.headers['content-type']).toBe('application/json');
      const detail = await settledEvent(org.apiKey, event.id);
      expect(detail.deliveryStatus).toBe('delivered');
      expect(detail.attempts).toEqual([expect.objectContaining({ attempt: 1, redelivery: 0, httpStatus: 200, error: null, nextAttemptAt: null })]);
    }
    const paidOutData = verify(receiver.of(paidOut.id)[0]!, secret).data;
    expect(paidOutData.state).toBe('PAID_OUT');
    const reconciledData = verify(receiver.of(reconciled.id)[0]!, secret).data;
    // The state and its timeline: a receiver that got them out of order keeps the longer timeline.
    expect(reconciledData.timeline.length).toBeGreaterThan(paidOutData.timeline.length);
    const now = (await call(service, 'GET', `/transactions/${transactionId}`, { apiKey: org.apiKey })).body;
    expect(reconciledData).toEqual(now);

    const all = (await call(service, 'GET', '/events?limit=500', { apiKey: org.apiKey })).body;
    expect(all.events.length).toBeGreaterThanOrEqual(2);
    for (const event of all.events) expect(event.type).toMatch(/^(transaction\.(paid_out|reconciled|refunded|in_doubt)|onramp\.(delivered|refunded)|offramp\.paid)$/);
  });

  it('a receiver failing the first two attempts gets the third, with the same webhook-id; the event shows the three attempts', async () => {
    receiver.respond = (delivery) => ({ status: delivery.path === '/main' && delivery.seen <= 2 ? 500 : 200 });
    const transactionId = await reconciledPayment(org.apiKey);
    const event = await eventOf(org.apiKey, transactionId, 'transaction.paid_out');
    const detail = await settledEvent(org.apiKey, event.id);
    expect(detail.deliveryStatus).toBe('delivered');
    expect(detail.attempts.map((attempt: any) => [attempt.attempt, attempt.httpStatus])).toEqual([[1, 500], [2, 500], [3, 200]]);
    expect(detail.attempts[0].nextAttemptAt).not.toBeNull();
    expect(detail.attempts[2].nextAttemptAt).toBeNull();
    const deliveries = receiver.of(event.id);
    expect(deliveries).toHaveLength(3);
    for (const delivery of deliveries) expect(verify(delivery, secret).type).toBe('transaction.paid_out');
    receiver.respond = () => ({ status: 200 });
  });

  it('a redirect is a failure and is never followed', async () => {
    receiver.respond = (delivery) => (delivery.seen === 1 ? { status: 302, headers: { location: `${receiver.url}/elsewhere` } } : { status: 204 });
    const transactionId = await reconciledPayment(org.apiKey);
    const event = await eventOf(org.apiKey, transactionId, 'transaction.reconciled');
    const detail = await settledEvent(org.apiKey, event.id);
    expect(detail.attempts.map((attempt: any) => attempt.httpStatus)).toEqual([302, 204]);
    expect(detail.attempts[0].error).toMatch(/redirect/);
    expect(receiver.deliveries.some((delivery) => delivery.path === '/elsewhere')).toBe(false);
    receiver.respond = () => ({ status: 200 });
  });

  it('every scheduled attempt failing marks the event failed after the tenth', async () => {
    receiver.respond = () => ({ status: 503 });
    const transactionId = await reconciledPayment(org.apiKey);
    const event = await eventOf(org.apiKey, transactionId, 'transaction.paid_out');
    const detail = await settledEvent(org.apiKey, event.id);
    expect(detail.deliveryStatus).toBe('failed');
    expect(detail.attempts).toHaveLength(maxAttempts);
    expect(new Set(receiver.of(event.id).map((delivery) => delivery.id))).toEqual(new Set([event.id]));
    // The longest delivery there is, measured against Step Functions' quotas: its history and its largest state payload (the body stays in the table).
    const execution = deliveryExecutionName({ organizationId: org.organizationId, eventId: event.id, redelivery: 0 });
    expect(await service.runner.waitFor(execution, 30_000, deliveryWorkflow)).toMatchObject({ status: 'SUCCEEDED' });
    const record = (await getExecution(execution, deliveryWorkflow))!;
    const historyEvents = record.events?.at(-1)?.id ?? 0;
    console.log(JSON.stringify({ longestWebhookDelivery: { attempts: maxAttempts, historyEvents, largestPayloadBytes: record.largestPayloadBytes } }));
    expect(historyEvents).toBeLessThan(100);
    expect(record.largestPayloadBytes).toBeLessThan(1_000);
    receiver.respond = () => ({ status: 200 });
    // The redelivery goes through, with the same webhook-id.
    const redelivered = await call(service, 'POST', `/events/${event.id}/redeliver`, { apiKey: org.apiKey });
    expect(redelivered.status).toBe(202);
    expect(redelivered.body).toMatchObject({ eventId: event.id, redelivery: 1 });
    const after = await settledEvent(org.apiKey, event.id, (body) => body.deliveryStatus === 'delivered');
    expect(after.attempts.at(-1)).toMatchObject({ redelivery: 1, attempt: 1, httpStatus: 200 });
    expect(verify(receiver.of(event.id).at(-1)!, secret).type).toBe('transaction.paid_out');
    // Healthy again: the endpoint's failure clock was reset by the success.
    expect((await call(service, 'GET', '/webhooks/endpoint', { apiKey: org.apiKey })).body.status).toBe('enabled');
  });

  it('redelivers a delivered event now, with the same webhook-id', async () => {
    const { events } = (await call(service, 'GET', '/events?type=transaction.reconciled', { apiKey: org.apiKey })).body;
    const delivered = events.find((event: any) => event.deliveryStatus === 'delivered');
    const before = receiver.of(delivered.id).length;
    const { status, body } = await call(service, 'POST', `/events/${delivered.id}/redeliver`, { apiKey: org.apiKey, body: {} });
    expect(status).toBe(202);
    expect(body.url).toBe(`${receiver.url}/main`);
    await eventually(async () => (receiver.of(delivered.id).length > before ? true : undefined), { what: 'the redelivery' });
    expect(verify(receiver.of(delivered.id).at(-1)!, secret).type).toBe('transaction.reconciled');
    // Takes no body (decision 074).
    expect((await call(service, 'POST', `/events/${delivered.id}/redeliver`, { apiKey: org.apiKey, body: { now: true } })).status).toBe(400);
  });
});

/**
 * The first attempt is the webhook starter's (docs/decisions/132): its crash windows. A starter that
 * fails is handed the same message again, as its queue would (here after the local bus's pause).
 */
describe('the first attempt, made by the starter', () => {
  let starterOrg: TestOrganization;
  let secret: string;

  beforeAll(async () => {
    starterOrg = await fundedOrganization('Webhook Starter Org');
    secret = (await register(starterOrg.apiKey, { url: `${receiver.url}/starter`, events: ['transaction.paid_out'] })).body.secret;
  });

  afterEach(() => {
    receiver.respond = () => ({ status: 200 });
  });

  /** The paid_out event of a new payment of the starter's organization, once its delivery has ended. */
  async function deliveredPaidOut(): Promise<any> {
    const transactionId = await reconciledPayment(starterOrg.apiKey);
    const event = await eventOf(starterOrg.apiKey, transactionId, 'transaction.paid_out');
    return settledEvent(starterOrg.apiKey, event.id);
  }

  const executionOf = (eventId: string) => getExecution(deliveryExecutionName({ organizationId: starterOrg.organizationId, eventId, redelivery: 0 }), deliveryWorkflow);

  it('a success starts no workflow', async () => {
    const detail = await deliveredPaidOut();
    expect(detail.deliveryStatus).toBe('delivered');
    expect(detail.attempts).toEqual([expect.objectContaining({ attempt: 1, redelivery: 0, httpStatus: 200, nextAttemptAt: null })]);
    expect(await executionOf(detail.id)).toBeUndefined();
  });

  it('dying after the POST, before keeping the attempt: sent again with the same webhook-id, one attempt kept, no workflow', async () => {
    let failedFor: string | undefined;
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { UpdateExpression?: string; Key?: { pk?: string } };
        if (!failedFor && input.UpdateExpression?.includes('firstAttemptAt') && input.Key?.pk === `ORG#${starterOrg.organizationId}`) {
          failedFor = input.Key?.pk;
          throw new Error('injected: the starter died after its POST');
        }
        return next(args);
      },
      { step: 'initialize', name: 'starter-dies-after-post' },
    );
    onTestFinished(() => void dynamo().middlewareStack.remove('starter-dies-after-post'));
    const detail = await deliveredPaidOut();
    expect(failedFor).toBeDefined();
    expect(detail.deliveryStatus).toBe('delivered');
    const deliveries = receiver.of(detail.id);
    expect(deliveries).toHaveLength(2);
    expect(deliveries[1]!.body).toBe(deliveries[0]!.body);
    for (const delivery of deliveries) expect(verify(delivery, secret).type).toBe('transaction.paid_out');
    expect(detail.attempts).toEqual([expect.objectContaining({ attempt: 1, httpStatus: 200 })]);
    expect(await executionOf(detail.id)).toBeUndefined();
  });

  it('dying after keeping a failed attempt, before starting the retries: they start once, and the event is delivered', async () => {
    receiver.respond = (delivery) => ({ status: delivery.path === '/starter' && delivery.seen === 1 ? 503 : 200 });
    const engine = await workflowEngine();
    const starts: string[] = [];
    useWorkflowEngine({
      ...engine,
      reachable: () => engine.reachable(),
      history: (workflow, name) => engine.history(workflow, name),
      start: async (workflow, name, input) => {
        if (workflow !== deliveryWorkflow || input.organizationId !== starterOrg.organizationId) return engine.start(workflow, name, input);
        starts.push(name);
        if (starts.length === 1) throw new Error('injected: the starter died before StartExecution');
        return engine.start(workflow, name, input);
      },
    });
    onTestFinished(() => useWorkflowEngine(engine));
    const detail = await deliveredPaidOut();
    expect(detail.deliveryStatus).toBe('delivered');
    expect(detail.attempts.map((attempt: any) => [attempt.attempt, attempt.httpStatus])).toEqual([[1, 503], [2, 200]]);
    expect(receiver.of(detail.id)).toHaveLength(2);
    const name = deliveryExecutionName({ organizationId: starterOrg.organizationId, eventId: detail.id, redelivery: 0 });
    expect(starts).toEqual([name, name]);
    expect(await service.runner.waitFor(name, 30_000, deliveryWorkflow)).toMatchObject({ status: 'SUCCEEDED' });
  });

  it('two starters of one event side by side: both POST, one attempt is kept, one workflow retries it', async () => {
    // The first POST is held until the duplicate's arrives, so both are sent before either is kept.
    let releaseFirst: (answer: { status: number }) => void = () => undefined;
    const first = new Promise<{ status: number }>((resolve) => (releaseFirst = resolve));
    const event = newOutboxEvent('transaction.paid_out', starterOrg.organizationId, { transactionId: 'tx_duplicate', state: 'PAID_OUT' });
    receiver.respond = (delivery) => {
      if (delivery.id !== event.id) return { status: 200 };
      if (delivery.seen === 1) return first;
      if (delivery.seen === 2) releaseFirst({ status: 503 });
      return { status: delivery.seen === 2 ? 503 : 200 };
    };
    const entry = { Source: eventSource, DetailType: event.type, Detail: JSON.stringify(event) };
    // EventBridge and SQS deliver at least once: the same event twice, handed to the starter in one batch.
    expect((await service.bus.publish([entry, entry])).failed).toEqual([]);
    const detail = await settledEvent(starterOrg.apiKey, event.id, (body) => body.deliveryStatus === 'delivered');
    expect(detail.attempts.map((attempt: any) => [attempt.attempt, attempt.httpStatus])).toEqual([[1, 503], [2, 200]]);
    expect(receiver.of(event.id).map((delivery) => delivery.seen)).toEqual([1, 2, 3]);
    const execution = deliveryExecutionName({ organizationId: starterOrg.organizationId, eventId: event.id, redelivery: 0 });
    expect(await service.runner.waitFor(execution, 30_000, deliveryWorkflow)).toMatchObject({ status: 'SUCCEEDED' });
  });
});

describe('the secret', () => {
  it('replacing the URL keeps it; rotation issues a new one and both sign for 24 hours', async () => {
    const other = await startReceiver();
    try {
      await call(service, 'DELETE', '/webhooks/endpoint', { apiKey: org.apiKey });
      const first = (await register(org.apiKey, { url: `${receiver.url}/main` })).body.secret as string;

      const moved = await register(org.apiKey, { url: `${other.url}/moved`, events: ['transaction.reconciled'] });
      expect(moved.status).toBe(200);
      expect(moved.body.secret).toBeUndefined();
      expect(moved.body.events).toEqual(['transaction.reconciled']);
      let transactionId = await reconciledPayment(org.apiKey);
      let event = await eventOf(org.apiKey, transactionId, 'transaction.reconciled');
      await settledEvent(org.apiKey, event.id);
      expect(verify(other.of(event.id)[0]!, first).data.transactionId).toBe(transactionId);
      // Not subscribed: paid_out was kept but not sent.
      const paidOut = await eventOf(org.apiKey, transactionId, 'transaction.paid_out');
      expect(paidOut.deliveryStatus).toBe('not_sent');
      expect(other.of(paidOut.id)).toEqual([]);

      const rotated = await register(org.apiKey, { url: `${other.url}/moved`, events: ['transaction.reconciled'], rotateSecret: true });
      const second = rotated.body.secret as string;
      expect(second).toMatch(/^whsec_/);
      expect(second).not.toBe(first);
      const expires = Date.parse(rotated.body.previousSecretExpiresAt);
      expect(expires - Date.now()).toBeGreaterThan(23.9 * 3600_000);
      expect(expires - Date.now()).toBeLessThanOrEqual(24 * 3600_000);

      transactionId = await reconciledPayment(org.apiKey);
      event = await eventOf(org.apiKey, transactionId, 'transaction.reconciled');
      await settledEvent(org.apiKey, event.id);
      const [delivery] = other.of(event.id);
      expect(delivery!.signature.split(' ')).toHaveLength(2);
      // A receiver still holding the old secret and one already on the new one both accept it.
      expect(verify(delivery!, first).data.transactionId).toBe(transactionId);
      expect(verify(delivery!, second).data.transactionId).toBe(transactionId);
      expect(() => verify(delivery!, `whsec_${Buffer.alloc(32, 7).toString('base64')}`)).toThrow();
    } finally {
      await other.close();
    }
  });
});

describe('stopping', () => {
  it('410 Gone disables the endpoint with its reason; a PUT enables it again', async () => {
    await register(org.apiKey, { url: `${receiver.url}/gone` });
    receiver.respond = (delivery) => ({ status: delivery.path === '/gone' ? 410 : 200 });
    const transactionId = await reconciledPayment(org.apiKey);
    const event = await eventOf(org.apiKey, transactionId, 'transaction.paid_out');
    const endpoint = await until(async () => (await call(service, 'GET', '/webhooks/endpoint', { apiKey: org.apiKey })).body, (body) => body.status === 'disabled', {
      what: 'the endpoint to be disabled',
    });
    expect(endpoint.disabledReason).toMatch(/410/);
    const detail = await settledEvent(org.apiKey, event.id);
    expect(detail.attempts).toHaveLength(1);
    expect(detail.deliveryStatus).toBe('failed');
    expect((await call(service, 'POST', `/events/${event.id}/redeliver`, { apiKey: org.apiKey })).status).toBe(409);

    const enabled = await register(org.apiKey, { url: `${receiver.url}/main` });
    expect(enabled.body).toMatchObject({ status: 'enabled', disabledReason: null });
    receiver.respond = () => ({ status: 200 });
  });

  it('an endpoint whose every attempt fails for the disable window is disabled', async () => {
    // A window of 2 s (5 days in AWS) for this test alone: the others' ten quick failures must not
    // outlast it on a busy machine, or the endpoint is disabled before the tenth attempt.
    process.env.WEBHOOK_DISABLE_AFTER_SECONDS = '2';
    reloadConfig();
    onTestFinished(() => {
      delete process.env.WEBHOOK_DISABLE_AFTER_SECONDS;
      reloadConfig();
    });
    await register(org.apiKey, { url: `${receiver.url}/down` });
    receiver.respond = (delivery) => ({ status: delivery.path === '/down' ? 503 : 200 });
    const transactionId = await reconciledPayment(org.apiKey);
    const event = await eventOf(org.apiKey, transactionId, 'transaction.paid_out');
    await settledEvent(org.apiKey, event.id);
    // Each redelivery is one more failed attempt; once the window (2 s here, 5 days in AWS) has passed, the next disables.
    const endpoint = await until(
      async () => {
        await call(service, 'POST', `/events/${event.id}/redeliver`, { apiKey: org.apiKey });
        return (await call(service, 'GET', '/webhooks/endpoint', { apiKey: org.apiKey })).body;
      },
      (body) => body.status === 'disabled',
      { what: 'the failing endpoint to be disabled', intervalMs: 400, timeoutMs: 15_000 },
    );
    expect(endpoint.disabledReason).toMatch(/failed for 2 seconds/);
    await register(org.apiKey, { url: `${receiver.url}/main` });
    receiver.respond = () => ({ status: 200 });
  });

  it('DELETE stops a delivery in flight at its next attempt, and nothing is sent after it', async () => {
    await register(org.apiKey, { url: `${receiver.url}/held` });
    let release: (answer: { status: number }) => void = () => undefined;
    const held = new Promise<{ status: number }>((resolve) => (release = resolve));
    receiver.respond = (delivery) => (delivery.path === '/held' ? held : { status: 200 });
    const transactionId = await reconciledPayment(org.apiKey);
    const event = await eventOf(org.apiKey, transactionId, 'transaction.paid_out');
    await eventually(async () => (receiver.of(event.id).length ? true : undefined), { what: 'the first attempt to arrive' });

    const deleted = await call(service, 'DELETE', '/webhooks/endpoint', { apiKey: org.apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ deleted: true, url: `${receiver.url}/held` });
    release({ status: 500 });
    const detail = await settledEvent(org.apiKey, event.id);
    expect(detail.deliveryStatus).toBe('stopped');
    expect(detail.attempts).toHaveLength(1);
    expect(receiver.of(event.id)).toHaveLength(1);
    expect((await call(service, 'GET', '/webhooks/endpoint', { apiKey: org.apiKey })).status).toBe(404);

    const later = await reconciledPayment(org.apiKey);
    const unsent = await eventOf(org.apiKey, later, 'transaction.reconciled');
    expect(unsent.deliveryStatus).toBe('not_sent');
    expect(receiver.of(unsent.id)).toEqual([]);
    receiver.respond = () => ({ status: 200 });
  });
});

describe('events', () => {
  it('filters by type and pages with a cursor bound to the filter', async () => {
    const reconciled = (await call(service, 'GET', '/events?type=transaction.reconciled&limit=500', { apiKey: org.apiKey })).body;
    expect(reconciled.events.length).toBeGreaterThan(1);
    expect(reconciled.events.every((event: any) => event.type === 'transaction.reconciled')).toBe(true);
    const times = reconciled.events.map((event: any) => event.createdAt);
    expect([...times].sort().reverse()).toEqual(times);

    const first = (await call(service, 'GET', '/events?type=transaction.reconciled&limit=1', { apiKey: org.apiKey })).body;
    expect(first).toMatchObject({ count: 1, hasMore: true });
    const second = (await call(service, 'GET', `/events?type=transaction.reconciled&limit=1&cursor=${encodeURIComponent(first.nextCursor)}`, { apiKey: org.apiKey })).body;
    expect(second.events[0].id).toBe(reconciled.events[1].id);
    const unfiltered = await call(service, 'GET', `/events?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`, { apiKey: org.apiKey });
    expect(unfiltered.status).toBe(400);
    expect(unfiltered.body.error).toBe('invalid_cursor');
    expect((await call(service, 'GET', '/events?type=transaction.funded', { apiKey: org.apiKey })).status).toBe(400);
  });

  it("another organization sees none of it: 404, never 403", async () => {
    const other = await fundedOrganization('Other Org');
    const { events } = (await call(service, 'GET', '/events', { apiKey: org.apiKey })).body;
    const id = events[0].id;
    expect((await call(service, 'GET', `/events/${id}`, { apiKey: other.apiKey })).status).toBe(404);
    expect((await call(service, 'POST', `/events/${id}/redeliver`, { apiKey: other.apiKey })).status).toBe(404);
    expect((await call(service, 'GET', '/events', { apiKey: other.apiKey })).body).toMatchObject({ events: [], count: 0, nextCursor: null });
    expect((await call(service, 'GET', '/webhooks/endpoint', { apiKey: other.apiKey })).status).toBe(404);
    expect((await call(service, 'GET', '/events/evt_nothing', { apiKey: org.apiKey })).status).toBe(404);
  });

  it('members and viewers read but cannot manage: 403 on PUT, DELETE and redeliver', async () => {
    await register(org.apiKey, { url: `${receiver.url}/main` });
    const { events } = (await call(service, 'GET', '/events', { apiKey: org.apiKey })).body;
    for (const role of ['member', 'viewer']) {
      const { apiKey } = await inviteAndAccept(service, org.apiKey, role);
      expect((await call(service, 'GET', '/webhooks/endpoint', { apiKey })).status).toBe(200);
      expect((await call(service, 'GET', '/events', { apiKey })).status).toBe(200);
      expect((await register(apiKey, { url: `${receiver.url}/mine` })).status).toBe(403);
      expect((await call(service, 'DELETE', '/webhooks/endpoint', { apiKey })).status).toBe(403);
      expect((await call(service, 'POST', `/events/${events[0].id}/redeliver`, { apiKey })).status).toBe(403);
    }
    const admin = await inviteAndAccept(service, org.apiKey, 'admin');
    expect((await register(admin.apiKey, { url: `${receiver.url}/main` })).status).toBe(200);
    expect((await call(service, 'GET', '/webhooks/endpoint', { apiKey: org.apiKey })).body.url).toBe(`${receiver.url}/main`);
  });
});
