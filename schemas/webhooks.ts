import { z } from 'zod';
import { Timestamp } from './common.ts';
import { OffRampStatus } from './offramps.ts';
import { OnRampStatus } from './deposits.ts';
import { TransactionStatus } from './transactions.ts';

/**
 * Everything about the webhook endpoint except that it exists is "not shown" by the contract. The shapes
 * here follow docs/DESIGN.md (Standard Webhooks) and are recorded in docs/decisions/030.
 */

export const EventType = z
  .enum([
    'transaction.paid_out',
    'transaction.reconciled',
    'transaction.refunded',
    'transaction.in_doubt',
    'onramp.delivered',
    'onramp.refunded',
    'offramp.paid',
  ])
  .meta({ id: 'EventType' });
export type EventType = z.infer<typeof EventType>;

/** The same URL rules for every environment at the schema level; the sender adds the address checks. */
const WebhookUrl = z
  .url({ protocol: /^https?$/ })
  .max(2048)
  .meta({
    description:
      'Where events are POSTed. Outside `simulated` the sender refuses URLs that resolve to loopback, private, link-local or metadata addresses.',
  });

export const WebhookEndpoint = z
  .object({
    url: WebhookUrl.nullable().meta({ description: 'The registered URL; null when none is registered.' }),
    updatedAt: Timestamp.nullable().meta({ description: 'When the URL was last registered; null when none is.' }),
  })
  .meta({
    id: 'WebhookEndpoint',
    description: 'Not shown by the contract; this shape is our choice (docs/decisions/030). No registration is `url: null`, not 404.',
  });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** PUT /webhooks/endpoint: strict, like the other configuration body (PUT /notifications/preferences). */
export const PutWebhookEndpointBody = z
  .object({ url: WebhookUrl })
  .strict()
  .meta({
    id: 'PutWebhookEndpointRequest',
    description: 'Not shown by the contract; this shape is our choice (docs/decisions/030). Registers or replaces the one URL.',
  });
export type PutWebhookEndpointBody = z.infer<typeof PutWebhookEndpointBody>;

export const RegisteredWebhookEndpoint = z
  .object({
    url: WebhookUrl,
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/=]+$/)
      .meta({ description: 'Standard Webhooks signing secret. Shown once; every PUT issues a new one.' }),
    updatedAt: Timestamp,
  })
  .meta({
    id: 'RegisteredWebhookEndpoint',
    description: 'Not shown by the contract; this shape is our choice (docs/decisions/030).',
  });
export type RegisteredWebhookEndpoint = z.infer<typeof RegisteredWebhookEndpoint>;

export const DeletedWebhookEndpoint = z
  .object({
    deleted: z.boolean().meta({ description: 'False when no URL was registered (deleting twice is harmless).' }),
    url: WebhookUrl.nullable().meta({ description: 'The URL that stopped receiving events; null when none was registered.' }),
  })
  .meta({
    id: 'DeletedWebhookEndpoint',
    description: 'Not shown by the contract; this shape is our choice (docs/decisions/030).',
  });
export type DeletedWebhookEndpoint = z.infer<typeof DeletedWebhookEndpoint>;

/**
 * The payload POSTed to the registered URL: `{id, type, createdAt, data}`, `data` being what the matching
 * GET returns at the moment of the event. A transaction event is sent when the payment reaches the state
 * of the same name (`transaction.paid_out` at PAID_OUT, ...).
 */
function eventOf<T extends z.ZodType>(types: [EventType, ...EventType[]], data: T, id: string, dataIs: string) {
  return z
    .object({
      id: z.string().meta({ description: 'Unique per event; receivers dedupe on it (delivery is at least once).' }),
      type: z.enum(types),
      createdAt: Timestamp,
      data: data.meta({ description: `What ${dataIs} returns at the moment of the event.` }),
    })
    .meta({ id });
}

export const TransactionEvent = eventOf(
  ['transaction.paid_out', 'transaction.reconciled', 'transaction.refunded', 'transaction.in_doubt'],
  TransactionStatus,
  'TransactionEvent',
  'GET /transactions/{transactionId}',
);
export const OnRampEvent = eventOf(['onramp.delivered', 'onramp.refunded'], OnRampStatus, 'OnRampEvent', 'GET /treasury/onramp/{onRampId}');
export const OffRampEvent = eventOf(['offramp.paid'], OffRampStatus, 'OffRampEvent', 'GET /treasury/offramp/{offRampId}');

/** Any event payload, for senders and receivers in code; the document lists the three webhooks instead. */
export const WebhookEvent = z.union([TransactionEvent, OnRampEvent, OffRampEvent]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;
