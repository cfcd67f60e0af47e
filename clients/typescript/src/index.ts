/**
 * The typed client of the cross-border payments API. Types are generated from the service's OpenAPI
 * document (schema.d.ts; `npm run client:generate` at the repository root).
 */
export { createClient, type ClientOptions, type Initiated, type PaymentsClient } from './client.ts';
export { ApiError, isErrorBody, unwrap, type ErrorBody, type ErrorCode } from './errors.ts';
export { idempotencyKeyFields, newIdempotencyKey, type InitiateBody, type InitiatePath } from './idempotency.ts';
export { listItemFields, type ListItem, type ListPath, type PaginateOptions } from './pagination.ts';
export { defaultRetryPolicy, type RetryPolicy } from './retries.ts';
export { Webhook, WebhookVerificationError, verifyWebhook, type WebhookEvent, type WebhookHeaders } from './webhooks.ts';
export type { components, operations, paths, webhooks } from './schema.d.ts';

import type { components } from './schema.d.ts';
/** A component of the document by name: `Schema<'TransactionStatus'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];
