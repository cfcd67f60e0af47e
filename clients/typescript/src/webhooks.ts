import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { webhooks } from './schema.d.ts';

export { Webhook, WebhookVerificationError };

/**
 * Every event the service POSTs to the registered endpoint (the document's `webhooks`), discriminated
 * on `type`: `transaction.paid_out`, `transaction.reconciled`, …, each with the resource as its GET
 * answered at the event in `data`.
 */
export type WebhookEvent = {
  [Name in keyof webhooks]: webhooks[Name] extends { post: { requestBody: { content: { 'application/json': infer Event } } } } ? Event : never;
}[keyof webhooks];

/** The request's headers as Node's `IncomingMessage` has them, or a fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery's Standard Webhooks signature (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`, within five minutes) against the endpoint's `whsec_` secret and answers the
 * event; throws `WebhookVerificationError` unless a signature matches. `payload` is the raw body, as
 * received: parsed and re-serialized JSON no longer matches its signature. Dedupe on `webhook-id`
 * (deliveries are at least once).
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): WebhookEvent {
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  return new Webhook(secret).verify(body, plainHeaders(headers)) as WebhookEvent;
}

function plainHeaders(headers: WebhookHeaders): Record<string, string> {
  const plain: Record<string, string> = {};
  const entries: Iterable<[string, string | string[] | undefined]> = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value !== undefined) plain[name.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value;
  }
  return plain;
}
