import { Webhook } from 'standardwebhooks';
import { config } from '#platform/config.ts';
import { ApiError } from '#platform/errors.ts';
import { logger } from '#platform/logger.ts';
import { executionName, workflowEngine, workflowWait } from '#platform/workflow.ts';
import { judgeAttempt, maxAttempts, retryAfterSeconds } from '#domain/webhookRetries.ts';
import { sendWebhook } from '#providers/webhookSender.ts';
import { open } from '#store/secretBox.ts';
import {
  appendAttempt, disableEndpoint, getEndpoint, getEvent, markFailing, markHealthy, maxRedeliveries, nextRedelivery, recordEvent, setDeliveryStatus,
  type DeliveryStatus, type EndpointRecord,
} from '#store/webhooks.ts';
import type { OutboxEvent } from '#store/outbox.ts';
import { EventType, type DeliveryAttempt } from '#schemas/webhooks.ts';

/**
 * Delivering an event to the organization's endpoint (docs/decisions/091). Each delivery is one
 * execution of the `webhookDelivery` workflow, named from the event (and the redelivery's number),
 * so a second start of the same delivery is a repeat that runs nothing (decision 100). Each attempt is one Task: it
 * reads the endpoint afresh (a DELETE or a disable stops the delivery there), signs the stored body
 * with every secret that signs now, POSTs it, keeps the attempt on the event, and answers whether to
 * wait and try again. At least once: an attempt cut off after the POST is made again, with the same
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

export async function startDelivery(ref: DeliveryRef): Promise<void> {
  const engine = await workflowEngine();
  await engine.start(deliveryWorkflow, deliveryExecutionName(ref), { ...ref });
}

/** Standard Webhooks' payload: the id travels as `webhook-id`, the body is `{type, timestamp, data}`. */
export function payloadOf(event: Pick<OutboxEvent, 'type' | 'createdAt' | 'data'>): string {
  return JSON.stringify({ type: event.type, timestamp: event.createdAt, data: event.data });
}

/**
 * An event of the seven types reached the bus: keep it for GET /events (30 days) and, when the
 * endpoint takes its type, start its delivery. A repeated bus delivery finds the event kept and
 * starts the same execution name again, a repeat that runs nothing: one delivery per event.
 * `readEndpoint` lets the starter read an organization's endpoint once for a batch of its events.
 */
export async function receiveEvent(event: OutboxEvent, readEndpoint: typeof getEndpoint = getEndpoint): Promise<void> {
  const type = EventType.parse(event.type);
  const endpoint = await readEndpoint(event.organizationId);
  const subscribed = endpoint?.status === 'enabled' && endpoint.events.includes(type) ? endpoint : undefined;
  const record = await recordEvent({
    organizationId: event.organizationId,
    id: event.id,
    type,
    createdAt: event.createdAt,
    body: payloadOf(event),
    deliveryStatus: subscribed ? 'pending' : 'not_sent',
    registrationId: subscribed?.registrationId ?? null,
    attempts: [],
    redeliveries: 0,
  });
  if (record.registrationId) await startDelivery({ organizationId: event.organizationId, eventId: event.id, redelivery: 0, registrationId: record.registrationId });
}

/** Every secret that signs now: the current one, and the one it replaced during its 24 hours. */
async function signingSecrets(endpoint: EndpointRecord, now: Date): Promise<string[]> {
  const secrets = [await open(endpoint.secret, endpoint.organizationId)];
  if (endpoint.previousSecret && endpoint.previousSecretExpiresAt && Date.parse(endpoint.previousSecretExpiresAt) > now.getTime()) {
    secrets.push(await open(endpoint.previousSecret, endpoint.organizationId));
  }
  return secrets;
}

/** A delivery never takes back `delivered`: a failed redelivery of a delivered event leaves it delivered. */
function statusAfter(previous: DeliveryStatus, next: DeliveryStatus): DeliveryStatus {
  return previous === 'delivered' ? 'delivered' : next;
}

export async function attemptDelivery(ref: DeliveryRef): Promise<{ outcome: DeliveryOutcome; waitSeconds?: number }> {
  const { organizationId, eventId, redelivery, registrationId } = ref;
  // Both read at once: the first attempt of every event waits on one round trip, not two.
  const [event, endpoint] = await Promise.all([getEvent(organizationId, eventId), getEndpoint(organizationId)]);
  if (!event) return { outcome: 'stopped' };
  const current = endpoint?.registrationId === registrationId && endpoint.status === 'enabled' && (redelivery > 0 || endpoint.events.includes(event.type));
  if (!endpoint || !current) {
    await setDeliveryStatus(organizationId, eventId, statusAfter(event.deliveryStatus, 'stopped'));
    return { outcome: 'stopped' };
  }
  const attempt = event.attempts.filter((earlier) => earlier.redelivery === redelivery).length + 1;
  const now = new Date();
  const signatures = (await signingSecrets(endpoint, now)).map((secret) => new Webhook(secret).sign(event.id, now, event.body));
  const headers = {
    'webhook-id': event.id,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signatures.join(' '),
  };
  const sent = await sendWebhook(endpoint.url, headers, event.body, config().SERVICE_ENVIRONMENT);
  const verdict = judgeAttempt({
    status: sent.status,
    attempt,
    allowed: redelivery === 0 ? maxAttempts : 1,
    retryAfter: retryAfterSeconds(sent.retryAfter, now),
    failingSince: endpoint.failingSince ? new Date(endpoint.failingSince) : undefined,
    now,
    disableAfter: config().WEBHOOK_DISABLE_AFTER_SECONDS,
  });
  const waitSeconds = verdict.kind === 'retry' ? workflowWait(verdict.waitSeconds) : undefined;
  const redirected = sent.status !== undefined && sent.status >= 300 && sent.status < 400;
  const record: DeliveryAttempt = {
    attemptedAt: now.toISOString(),
    redelivery,
    attempt,
    url: endpoint.url,
    httpStatus: sent.status ?? null,
    error: sent.error ?? (redirected ? 'a redirect is a failure; it is not followed' : null),
    latencyMs: sent.latencyMs,
    nextAttemptAt: waitSeconds === undefined ? null : new Date(now.getTime() + waitSeconds * 1000).toISOString(),
  };
  let status: DeliveryStatus;
  switch (verdict.kind) {
    case 'delivered':
      await markHealthy(organizationId, registrationId);
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
  await appendAttempt(organizationId, eventId, record, statusAfter(event.deliveryStatus, status));
  if (verdict.kind === 'retry') return { outcome: 'retry', waitSeconds };
  return { outcome: verdict.kind === 'disable' ? 'stopped' : verdict.kind };
}

/** The workflow's Catch: what the step did not expect ends the delivery as failed, visible on the event. */
export async function parkDelivery(ref: DeliveryRef & { error?: unknown }): Promise<{ outcome: DeliveryOutcome; waitSeconds?: number }> {
  logger.error('webhook delivery parked', { organizationId: ref.organizationId, eventId: ref.eventId, redelivery: ref.redelivery, error: JSON.stringify(ref.error ?? null).slice(0, 500) });
  const event = await getEvent(ref.organizationId, ref.eventId);
  if (event) await setDeliveryStatus(ref.organizationId, ref.eventId, statusAfter(event.deliveryStatus, 'failed'));
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
