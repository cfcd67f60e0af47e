import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { PageFields, PathId, Timestamp, pageQuery } from './common.ts';
import { OffRampStatus } from './offramps.ts';
import { OnRampStatus } from './deposits.ts';
import { TransactionStatus } from './transactions.ts';

/**
 * The webhook endpoint, the events an organization receives and their deliveries. The contract shows
 * only that the three endpoint routes exist; every shape here is our choice (docs/decisions/091,
 * which supersedes decision 030's webhook rows). Signing is Standard Webhooks.
 */

export const EventType = /* @__PURE__ */ schema(() => z
  .enum([
    'transaction.paid_out',
    'transaction.reconciled',
    'transaction.refunded',
    'transaction.in_doubt',
    'onramp.delivered',
    'onramp.refunded',
    'offramp.paid',
  ])
  .check(z.meta({ id: 'EventType' })));
export type EventType = z.infer<typeof EventType>;

export const eventTypes = /* @__PURE__ */ schema(() => EventType.options);

/**
 * The URL rules a schema can check. The sender adds the rest: `https` outside `simulated`, and the
 * resolved addresses (no loopback, private, link-local, unique-local, multicast or metadata address).
 */
const WebhookUrl = /* @__PURE__ */ schema(() => z.url({ protocol: /^https?$/ }).check(
  z.maxLength(2048),
  z.refine((url) => {
    try {
      const parsed = new URL(url);
      return parsed.username === '' && parsed.password === '';
    } catch {
      return false;
    }
  }, 'must not carry credentials (user:password@)'),
  z.meta({
    description:
      'Where events are POSTed, at most 2,048 characters, no credentials in it. `https` outside `simulated`; the addresses its host resolves to must be public (checked at registration and again at every connection).',
  }),
));

const EndpointStatus = /* @__PURE__ */ schema(() => z
  .enum(['enabled', 'disabled'])
  .check(z.meta({ description: '`disabled` after a 410 Gone or five days of failures; a PUT enables it again.' })));

const endpointFields = /* @__PURE__ */ schema(() => ({
  url: WebhookUrl,
  events: z.array(EventType).check(z.meta({ description: 'The event types delivered to this endpoint.' })),
  status: EndpointStatus,
  disabledReason: z.nullable(z.string()).check(z.meta({ description: 'Why delivery stopped by itself; null while enabled.' })),
  previousSecretExpiresAt: z.nullable(Timestamp).check(
    z.meta({
      description: 'After a rotation, the old secret signs too (a second `v1,` signature) until this time; null when only one secret signs.',
    }),
  ),
  createdAt: Timestamp,
  updatedAt: Timestamp,
}));

export const WebhookEndpoint = /* @__PURE__ */ schema(() => z
  .object({
    ...endpointFields,
    secretHint: z.string().check(z.meta({ description: 'The end of the current signing secret, to tell which one a receiver holds.' })),
  })
  .check(z.meta({ id: 'WebhookEndpoint', description: 'The registered endpoint. The secret itself is shown only when issued.' })));
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** PUT /webhooks/endpoint: strict, like the other configuration body (PUT /notifications/preferences). */
export const PutWebhookEndpointBody = /* @__PURE__ */ schema(() => z
  .strictObject({
    url: WebhookUrl,
    events: z
      .optional(z.array(EventType).check(z.minLength(1), z.maxLength(7)))
      .check(z.meta({ description: 'A subset of the seven event types; all of them when absent. To receive none, DELETE the endpoint.' })),
    rotateSecret: z.optional(z.boolean()).check(
      z.meta({
        description: 'Issue a new signing secret; the old one keeps signing too for 24 hours, so receivers can switch without losing a message.',
      }),
    ),
  })
  .check(
    z.meta({
      id: 'PutWebhookEndpointRequest',
      description: 'Registers or replaces the one endpoint. Replacing the URL keeps the secret; the first registration and `rotateSecret: true` issue one.',
    }),
  ));
export type PutWebhookEndpointBody = z.infer<typeof PutWebhookEndpointBody>;

export const RegisteredWebhookEndpoint = /* @__PURE__ */ schema(() => z
  .object({
    ...endpointFields,
    secret: z
      .optional(z.string().check(z.regex(/^whsec_[A-Za-z0-9+/=]+$/)))
      .check(z.meta({ description: 'Standard Webhooks signing secret (`whsec_` + base64): present only when this request issued it, and shown only once.' })),
  })
  .check(z.meta({ id: 'RegisteredWebhookEndpoint' })));
export type RegisteredWebhookEndpoint = z.infer<typeof RegisteredWebhookEndpoint>;

export const DeletedWebhookEndpoint = /* @__PURE__ */ schema(() => z
  .object({
    deleted: z.literal(true),
    url: WebhookUrl,
    events: z.array(EventType),
    deletedAt: Timestamp,
  })
  .check(z.meta({ id: 'DeletedWebhookEndpoint', description: 'What stopped receiving events. Deliveries in flight stop at their next attempt.' })));
export type DeletedWebhookEndpoint = z.infer<typeof DeletedWebhookEndpoint>;

// ---- The payload POSTed, and the events as the API lists them ----------------------------

/**
 * Standard Webhooks' payload: `{type, timestamp, data}`; the event id is the `webhook-id` header.
 * `data` is what the matching GET answered when the event happened, with its timeline: events are
 * not ordered, so a receiver keeps the state whose timeline is the longer (or its `updatedAt` the later).
 */
function payloadOf<T extends z.ZodMiniType>(types: [EventType, ...EventType[]], data: T, id: string, dataIs: string) {
  return z
    .object({
      type: z.enum(types),
      timestamp: Timestamp.check(z.meta({ description: 'When the event happened (not when this attempt was sent).' })),
      data: data.check(z.meta({ description: `What ${dataIs} answered at the moment of the event.` })),
    })
    .check(z.meta({ id }));
}

export const TransactionEvent = /* @__PURE__ */ schema(() => payloadOf(
  ['transaction.paid_out', 'transaction.reconciled', 'transaction.refunded', 'transaction.in_doubt'],
  TransactionStatus,
  'TransactionEvent',
  'GET /transactions/{transactionId}',
));
export const OnRampEvent = /* @__PURE__ */ schema(() => payloadOf(['onramp.delivered', 'onramp.refunded'], OnRampStatus, 'OnRampEvent', 'GET /treasury/onramp/{onRampId}'));
export const OffRampEvent = /* @__PURE__ */ schema(() => payloadOf(['offramp.paid'], OffRampStatus, 'OffRampEvent', 'GET /treasury/offramp/{offRampId}'));

export const WebhookPayload = /* @__PURE__ */ schema(() => z
  .object({ type: EventType, timestamp: Timestamp, data: z.record(z.string(), z.unknown()) })
  .check(z.meta({ id: 'WebhookPayload', description: 'The body POSTed, byte for byte as signed: one of TransactionEvent, OnRampEvent, OffRampEvent.' })));
export type WebhookPayload = z.infer<typeof WebhookPayload>;

const DeliveryStatus = /* @__PURE__ */ schema(() => z.enum(['pending', 'delivering', 'delivered', 'failed', 'stopped', 'not_sent']).check(
  z.meta({
    description:
      '`not_sent`: no endpoint was registered for this type when the event happened. `pending`/`delivering`: attempts go on. `delivered`: a 2xx came back. `failed`: every scheduled attempt failed. `stopped`: the endpoint was deleted or disabled before an attempt succeeded.',
  }),
));

export const EventSummary = /* @__PURE__ */ schema(() => z
  .object({
    id: z.string().check(z.meta({ description: 'The `webhook-id` of every attempt.' })),
    type: EventType,
    createdAt: Timestamp,
    deliveryStatus: DeliveryStatus,
  })
  .check(z.meta({ id: 'EventSummary' })));
export type EventSummary = z.infer<typeof EventSummary>;

export const DeliveryAttempt = /* @__PURE__ */ schema(() => z
  .object({
    attemptedAt: Timestamp,
    redelivery: z
      .number()
      .check(z.int(), z.minimum(0), z.meta({ description: '0 for the scheduled delivery; n for the n-th POST /events/{eventId}/redeliver.' })),
    attempt: z.number().check(z.int(), z.minimum(1), z.meta({ description: 'The attempt within its delivery (1 to 10).' })),
    url: z.string(),
    httpStatus: z
      .nullable(z.number().check(z.int()))
      .check(z.meta({ description: "The receiver's answer; null when none came (refused address, connection error, 10 s timeout)." })),
    error: z.nullable(z.string()),
    latencyMs: z.number().check(z.int(), z.minimum(0)),
    nextAttemptAt: z.nullable(Timestamp).check(z.meta({ description: 'When the next attempt is due; null when this one ended the delivery.' })),
  })
  .check(z.meta({ id: 'DeliveryAttempt' })));
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const EventDetail = /* @__PURE__ */ schema(() => z
  .object({
    ...EventSummary.shape,
    payload: WebhookPayload,
    attempts: z.array(DeliveryAttempt).check(z.meta({ description: 'Oldest first: at most 10 scheduled attempts and one per redelivery (at most 40).' })),
    expiresAt: Timestamp.check(z.meta({ description: 'Events are kept 30 days.' })),
  })
  .check(z.meta({ id: 'EventDetail', description: 'The event as delivered (the same bytes every attempt signs) and its delivery attempts.' })));
export type EventDetail = z.infer<typeof EventDetail>;

export const ListEventsQuery = /* @__PURE__ */ schema(() => z.extend(pageQuery(500), {
  type: z.optional(EventType).check(z.meta({ description: 'Only events of this type.' })),
}));
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

export const EventList = /* @__PURE__ */ schema(() => z.object({ events: z.array(EventSummary), ...PageFields }).check(z.meta({ id: 'EventList' })));
export type EventList = z.infer<typeof EventList>;

export const EventParams = /* @__PURE__ */ schema(() => z.object({ eventId: PathId }));
export type EventParams = z.infer<typeof EventParams>;

export const RedeliveryAccepted = /* @__PURE__ */ schema(() => z
  .object({
    eventId: z.string(),
    redelivery: z.number().check(z.int(), z.minimum(1), z.meta({ description: 'Its number among the redeliveries of the event; attempts show it.' })),
    url: z.string(),
  })
  .check(z.meta({ id: 'RedeliveryAccepted', description: 'One new attempt starts now, with the same `webhook-id`.' })));
export type RedeliveryAccepted = z.infer<typeof RedeliveryAccepted>;
