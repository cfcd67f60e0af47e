import { Webhook } from 'standardwebhooks';
import { config } from '#platform/config.ts';
import { ApiError } from '#platform/errors.ts';
import { logger } from '#platform/logger.ts';
import type { BatchReads } from '#platform/queueConsumer.ts';
import { executionName, workflowEngine, workflowWait } from '#platform/workflow.ts';
import { judgeAttempt, maxAttempts, retryAfterSeconds } from '#domain/webhookRetries.ts';
import { sendWebhook } from '#providers/webhookSender.ts';
import { open } from '#store/secretBox.ts';
import {
  appendAttempt, disableEndpoint, getEndpoint, getEvent, keepFirstAttempt, markFailing, markHealthy, maxRedeliveries, nextRedelivery, recordEvent, setDeliveryStatus,
  type DeliveryStatus, type EndpointRecord, type EventRecord,
} from '#store/webhooks.ts';
import type { OutboxEvent } from '#store/outbox.ts';
import { EventType, type DeliveryAttempt } from '#schemas/webhooks.ts';

/**
 * Delivering an event to the organization's endpoint (docs/decisions/091, 132). The first attempt
 * is made by the webhook starter, in the invocation that keeps the event: it holds the event and
 * the endpoint already. Only when a retry must follow does it start the `webhookDelivery` workflow,
 * which waits first and then makes the later attempts, one Task each; a redelivery is an execution
 * of its own. Executions are named from the event (and the redelivery's number), so a second start
 * of the same delivery is a repeat that runs nothing (decision 100). Every attempt reads the
 * endpoint afresh (a DELETE or a disable stops the delivery there), signs the stored body with every
 * secret that signs now, POSTs it, keeps the attempt on the event, and answers whether to wait and
 * try again. At least once: an attempt cut off after the POST is made again, with the same
 * `webhook-id`.
 */
export type DeliveryOutcome = 'retry' | 'delivered' | 'failed' | 'stopped';

export interface DeliveryRef {
  organizationId: string;
  eventId: string;
  /** 0 for the scheduled delivery; n for the n-th redelivery (one attempt). */
  redelivery: number;
  /** The endpoint registration the delivery was started for. */
  registrationId: string;
}

export const deliveryWorkflow = 'webhookDelivery';

export function deliveryExecutionName(ref: Pick<DeliveryRef, 'organizationId' | 'eventId' | 'redelivery'>): string {
  return executionName(ref.organizationId, `webhook-${ref.eventId}-${ref.redelivery}`);
}

/**
 * `afterFirstAttempt`: the starter made the first attempt and it failed; the execution begins with
 * the wait it recorded (the ASL's `FirstAttemptMade` reads `step`, as after its own SendEvent).
 */
export async function startDelivery(ref: DeliveryRef, afterFirstAttempt?: { waitSeconds: number }): Promise<void> {
  const engine = await workflowEngine();
  const input = afterFirstAttempt ? { ...ref, step: { outcome: 'retry', waitSeconds: afterFirstAttempt.waitSeconds } } : { ...ref };
  await engine.start(deliveryWorkflow, deliveryExecutionName(ref), input);
}

/** Standard Webhooks' payload: the id travels as `webhook-id`, the body is `{type, timestamp, data}`. */
export function payloadOf(event: Pick<OutboxEvent, 'type' | 'createdAt' | 'data'>): string {
  return JSON.stringify({ type: event.type, timestamp: event.createdAt, data: event.data });
}

/** The scheduled delivery's first attempt, once kept. */
function firstAttemptOf(event: EventRecord): DeliveryAttempt | undefined {
  return event.attempts.find((attempt) => attempt.redelivery === 0 && attempt.attempt === 1);
}

/**
 * What follows a kept first attempt: nothing, or the workflow's retries after the wait it recorded.
 * The wait is read from the record, so every starter of the event (the one that kept it, a
 * duplicate, a repeat after a crash) starts the same execution with the same input: a repeat.
 */
async function followFirstAttempt(ref: DeliveryRef, first: DeliveryAttempt): Promise<void> {
  if (first.nextAttemptAt === null) return;
  const waitSeconds = (Date.parse(first.nextAttemptAt) - Date.parse(first.attemptedAt)) / 1000;
  await startDelivery(ref, { waitSeconds });
}

/**
 * An event of the seven types reached the bus: keep it for GET /events (30 days) and, when the
 * endpoint takes its type, make its first attempt at once; the workflow is started only when a
 * retry must follow. A repeated bus delivery finds the event kept: if no first attempt was kept
 * (the starter before it died after the POST, or before), it is made again with the same
 * `webhook-id`; if one was, what follows it is started again, a repeat that runs nothing. Of two
 * starters of the same event side by side, only one keeps its attempt (keepFirstAttempt); the other's
 * POST is a duplicate, as after a crash, and it follows the kept attempt. `reads` lets the starter
 * read an organization's endpoint, and open its secrets, once for a batch of its events.
 */
export async function receiveEvent(event: OutboxEvent, reads: BatchReads = (_key, read) => read()): Promise<void> {
  const type = EventType.parse(event.type);
  const { organizationId, id: eventId } = event;
  const endpoint = await reads(`webhookEndpoint:${organizationId}`, () => getEndpoint(organizationId));
  const subscribed = endpoint?.status === 'enabled' && endpoint.events.includes(type) ? endpoint : undefined;
  // The secrets are opened while the event is kept: the attempt waits on one round trip, not two.
  const [record, secrets] = await Promise.all([
    recordEvent({
      organizationId,
      id: eventId,
      type,
      createdAt: event.createdAt,
      body: payloadOf(event),
      deliveryStatus: subscribed ? 'pending' : 'not_sent',
      registrationId: subscribed?.registrationId ?? null,
      attempts: [],
      redeliveries: 0,
    }),
    subscribed ? reads(`webhookSecrets:${organizationId}`, () => signingSecrets(subscribed, new Date())) : undefined,
  ]);
  if (!record.registrationId) return;
  const ref: DeliveryRef = { organizationId, eventId, redelivery: 0, registrationId: record.registrationId };
  let first = firstAttemptOf(record);
  // `stopped` with no attempt: an earlier try found the endpoint replaced or disabled.
  if (!first && record.deliveryStatus !== 'stopped') {
    const made = await attempt(ref, record, endpoint, { secrets, keep: (kept, status) => keepFirstAttempt(organizationId, eventId, kept, status) });
    if (!made.attempt) return;
    // Another starter of this event kept its first attempt before this one: follow that one.
    first = made.kept ? made.attempt : firstAttemptOf((await getEvent(organizationId, eventId)) ?? record);
  }
  if (first) await followFirstAttempt(ref, first);
}

/** Every secret that signs now: the current one, and the one it replaced during its 24 hours. */
async function signingSecrets(endpoint: EndpointRecord, now: Date): Promise<string[]> {
  const secrets = [await open(endpoint.secret, endpoint.organizationId)];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && Date.parse(endpoint.previousSecretExpiresAt) > now.getTime()) {
    secrets.push(await open(endpoint.previousSecret, endpoint.organizationId));
  }
  return secrets;
}

interface Attempted {
  outcome: DeliveryOutcome;
  waitSeconds?: number;
  /** The attempt made; none when the delivery stopped before the POST. */
  attempt?: DeliveryAttempt;
  /** Whether `keep` kept it (the starter's is refused when another starter's first attempt was kept). */
  kept: boolean;
}

/** A Task of the workflow: one attempt, the event and the endpoint read afresh. */
export async function attemptDelivery(ref: DeliveryRef): Promise<{ outcome: DeliveryOutcome; waitSeconds?: number }> {
  // Both read at once: one round trip, not two.
  const [event, endpoint] = await Promise.all([getEvent(ref.organizationId, ref.eventId), getEndpoint(ref.organizationId)]);
  if (!event) return { outcome: 'stopped' };
  const { outcome, waitSeconds } = await attempt(ref, event, endpoint, {
    keep: async (made, status) => (await appendAttempt(ref.organizationId, ref.eventId, made, status), true),
  });
  return { outcome, waitSeconds };
}

/**
 * One attempt with the event and the endpoint in hand: the endpoint must still be the registration
 * the delivery started under, enabled and (for the scheduled delivery) taking the type, or the
 * delivery stops. `secrets`: those the caller opened already.
 */
async function attempt(
  ref: DeliveryRef,
  event: EventRecord,
  endpoint: EndpointRecord | undefined,
  { secrets, keep }: { secrets?: string[]; keep: (attempt: DeliveryAttempt, status: DeliveryStatus) => Promise<boolean> },
): Promise<Attempted> {
  const { organizationId, eventId, redelivery, registrationId } = ref;
  const current = endpoint?.registrationId === registrationId && endpoint.status === 'enabled' && (redelivery > 0 || endpoint.events.includes(event.type));
  if (!endpoint || !current) {
    await setDeliveryStatus(organizationId, eventId, 'stopped');
    return { outcome: 'stopped', kept: true };
  }
  const number = event.attempts.filter((earlier) => earlier.redelivery === redelivery).length + 1;
  const now = new Date();
  const signatures = (secrets ?? (await signingSecrets(endpoint, now))).map((secret) => new Webhook(secret).sign(event.id, now, event.body));
  const headers = {
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
  const sent = await sendWebhook(endpoint.url, headers, event.body, config().SERVICE_ENVIRONMENT);
  const verdict = judgeAttempt({
    status: sent.status,
    attempt: number,
    allowed: redelivery === 0 ? maxAttempts : 1,
    retryAfter: retryAfterSeconds(sent.retryAfter, now),
    failingSince: endpoint.failingSince ? new Date(endpoint.failingSince) : undefined,
    now,
    disableAfter: config().WEBHOOK_DISABLE_AFTER_SECONDS,
  });
  const waitSeconds = verdict.kind === 'retry' ? workflowWait(verdict.waitSeconds) : undefined;
  const redirected = sent.status !== undefined && sent.status >= 300 && sent.status < 400;
  const made: DeliveryAttempt = {
    attemptedAt: now.toISOString(),
    redelivery,
    attempt: number,
    url: endpoint.url,
    httpStatus: sent.status ?? null,
    error: sent.error ?? (redirected ? 'a redirect is a failure; it is not followed' : null),
    latencyMs: sent.latencyMs,
    nextAttemptAt: waitSeconds === undefined ? null : new Date(now.getTime() + waitSeconds * 1000).toISOString(),
  };
  let status: DeliveryStatus;
  switch (verdict.kind) {
    case 'delivered':
      // Only a failing endpoint has a clock to clear: a healthy one is not written at every delivery.
      if (endpoint.failingSince) await markHealthy(organizationId, registrationId);
      status = 'delivered';
      break;
    case 'retry':
      await markFailing(organizationId, registrationId, now);
      status = 'delivering';
      break;
    case 'failed':
      await markFailing(organizationId, registrationId, now);
      status = 'failed';
      break;
    case 'disable':
      await disableEndpoint(organizationId, registrationId, verdict.reason, now);
      logger.warn('webhook endpoint disabled', { organizationId, eventId, reason: verdict.reason });
      status = 'failed';
      break;
  }
  // A delivered event stays delivered (a failed redelivery of it, say): the store's write keeps it so.
  const kept = await keep(made, status);
  const outcome = verdict.kind === 'disable' ? 'stopped' : verdict.kind;
  return { outcome, ...(waitSeconds === undefined ? {} : { waitSeconds }), attempt: made, kept };
}

/** The workflow's Catch: what the step did not expect ends the delivery as failed, visible on the event. */
export async function parkDelivery(ref: DeliveryRef & { error?: unknown }): Promise<{ outcome: DeliveryOutcome; waitSeconds?: number }> {
  logger.error('webhook delivery parked', { organizationId: ref.organizationId, eventId: ref.eventId, redelivery: ref.redelivery, error: JSON.stringify(ref.error ?? null).slice(0, 500) });
  // A gone event stays gone and a delivered one delivered: the store's write sees to both.
  await setDeliveryStatus(ref.organizationId, ref.eventId, 'failed');
  return { outcome: 'failed' };
}

/**
 * POST /events/{eventId}/redeliver: one new attempt now, to the endpoint as registered now, with the
 * same `webhook-id` (the receiver's dedupe keeps it from acting twice). Undefined when there is no
 * such event; 409 `conflict` when nothing can receive it or it was redelivered too often.
 */
export async function redeliver(organizationId: string, eventId: string): Promise<{ eventId: string; redelivery: number; url: string } | undefined> {
  const event = await getEvent(organizationId, eventId);
  if (!event) return undefined;
  const endpoint = await getEndpoint(organizationId);
  if (!endpoint) throw new ApiError('conflict', 'No webhook endpoint is registered; PUT /webhooks/endpoint first.');
  if (endpoint.status !== 'enabled') throw new ApiError('conflict', `The webhook endpoint is disabled (${endpoint.disabledReason ?? 'no reason kept'}); PUT /webhooks/endpoint enables it again.`);
  const redelivery = await nextRedelivery(organizationId, eventId);
  if (redelivery === undefined) throw new ApiError('conflict', `The event was redelivered ${maxRedeliveries} times already.`);
  await startDelivery({ organizationId, eventId, redelivery, registrationId: endpoint.registrationId });
  return { eventId, redelivery, url: endpoint.url };
}
