import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig, type RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { OpenAPIObject, ReferenceObject, ResponseObject, SchemaObject } from 'openapi3-ts/oas31';
import * as z from 'zod';
import { classicTwin } from './classicTwin.ts';
import packageJson from '../../package.json' with { type: 'json' };
import type { Feature } from './features.ts';
import { bucketOf, notImplementedHandler, routes, takesNoBody, type RouteDefinition } from './routes.ts';
import {
  BeneficiaryIncompleteBody,
  ComplianceHoldBody,
  InsufficientFundsBody,
  NotImplementedBody,
  RateLimitedBody,
  ValidationErrorBody,
  errorCodeStatus,
  type ErrorCode,
} from '#schemas/errors.ts';
import { OffRampEvent, OnRampEvent, TransactionEvent } from '#schemas/webhooks.ts';
import { offRampOutcomeBands, onRampOutcomeBands, payoutOutcomeBands, withdrawalOutcomeBands, type OutcomeBand } from './outcomeBands.ts';
import { operationDescriptions } from './descriptions.ts';
import recorded from '#schemas/examples/recorded.json' with { type: 'json' };
import * as batches from '#schemas/batches.ts';
import * as common from '#schemas/common.ts';
import * as deposits from '#schemas/deposits.ts';
import * as discovery from '#schemas/discovery.ts';
import * as errors from '#schemas/errors.ts';
import * as notifications from '#schemas/notifications.ts';
import * as offramps from '#schemas/offramps.ts';
import * as quotes from '#schemas/quotes.ts';
import * as recipients from '#schemas/recipients.ts';
import * as sandbox from '#schemas/sandbox.ts';
import * as statements from '#schemas/statements.ts';
import * as team from '#schemas/team.ts';
import * as transactions from '#schemas/transactions.ts';
import * as wallets from '#schemas/wallets.ts';
import * as webhooks from '#schemas/webhooks.ts';

/**
 * The OpenAPI 3.1 document, generated from the route table and the zod schemas the handlers validate
 * with, so the published contract cannot drift from what the service accepts and answers.
 */

/** A band table of one simulator: the cents of the amount, what the operation ends as, and how. */
function bandTable(bands: readonly OutcomeBand[]): string {
  return [
    '| cents | ends as | what happens |',
    '|---|---|---|',
    ...bands.map((band) => `| .${String(band.cents).padStart(2, '0')} | \`${band.outcome}\` | ${band.description} |`),
    '| any other | the normal end | Paid, delivered or sent exactly. |',
  ].join('\n');
}

/**
 * The conventions every operation shares, on the reference page's first screen (markdown; each `##`
 * heading is an entry of its menu). The outcome bands are the tables the simulators act on (./outcomeBands.ts), so the
 * page cannot promise an outcome a simulator would not produce.
 */
const conventions = [
  'Send a stablecoin amount (USDC) that is paid out in local currency, run batch payouts, hold a USDC balance, take deposits, withdrawals and off-ramps, and manage recipients, team, keys, webhooks and e-mail notifications.',
  '',
  'The whole contract is this document: `GET /openapi.json` (OpenAPI 3.1), rendered here by `GET /docs`. Every example below is a request the service took or an answer it gave, recorded from the simulated environment (`npm run examples:record`) and checked against this document by its tests.',
  '',
  '## Conventions',
  '',
  '- JSON in and out; a response body is the payload itself, with no envelope.',
  '- Amounts in requests are decimal strings (`^\\d+(\\.\\d+)?$`) unless an endpoint gives another pattern; more decimals than the currency allows is refused, never rounded. Amounts in responses are money objects `{amount, currency, scale}` with `amount` an integer string in units of 10^-scale.',
  '- Timestamps are ISO 8601 in UTC with millisecond precision and a `Z` offset.',
  '- The organization always comes from the API key (`Authorization: Bearer <API_KEY>`). A resource of another organization answers 404, exactly like one that does not exist.',
  '- A feature that is not wired on an environment answers 501 `not_implemented` with a reason; read `GET /capabilities` at startup and gate features and corridors on it.',
  '- Some request bodies are strict (an unknown field gives 400 `validation`, marked `additionalProperties: false`); the others ignore unknown fields, so spell field names exactly.',
  '',
  '## Idempotency keys',
  '',
  'Every operation that moves money takes a key (`^[A-Za-z0-9_.:-]{8,200}$`: `idempotencyKey`, or `batchId` for a batch) that becomes its id, so a retry of the same request never creates a second operation: it answers the first one. The same key with a different request is 409 (`idempotency_key_reused` or `idempotency_key_conflict`); a retry is compared on what it asks, not how it is written (`"100"` and `"100.00"` are the same payment).',
  '',
  '202 means started, not finished: read the outcome from the matching GET (poll while `running` is true) or learn it by webhook. After a timeout, a 429 or a 503, send the same request with the same key.',
  '',
  '## Cursors',
  '',
  'Lists are newest first. Send `limit` and `cursor`; read `count` (rows in this page, not a total), `nextCursor` and `hasMore`. Send `nextCursor` back unchanged until it is null: null is the only end of the list. A cursor the service did not issue (or one for another list) is 400 `invalid_cursor`.',
  '',
  '## Errors',
  '',
  'Every error is `{error, message}`, plus extra fields for some codes (`issues` for `validation`, `missing`/`invalid` for `beneficiary_incomplete`, `retryAfterSeconds` for `rate_limited`, …). Branch on `error`, never on `message`, which is text for people. Each operation lists the codes it can answer under its statuses. 500 `internal` is logged on our side; 503 `unavailable` may or may not have taken effect, so retry with backoff and the same idempotency key.',
  '',
  '## Rate limits',
  '',
  'Three token buckets per organization: `initiate` (30 burst, 5 a second: POST /transactions and POST /batches, one token per batch item), `write` (60 / 10) and `read` (300 / 50). Each operation names its bucket. Every authenticated response carries `ratelimit-limit`, `ratelimit-remaining` and `ratelimit-reset`; when a bucket is empty, 429 `rate_limited` with a `Retry-After` header and `retryAfterSeconds`. A 429 did nothing: retry after that many seconds with the same idempotency key. Deployed stages also limit requests per client address at the edge (429 in the same body, `Retry-After: 60`).',
  '',
  '## Outcome bands of the simulated environment',
  '',
  'On `simulated` (what `npm start` runs) the providers are simulators, and the **cents of the amount choose how an operation ends**, so every path can be forced on purpose. `GET /treasury/sandbox-prefill` lists the same bands with ready-made amounts.',
  '',
  '**Payments** (the cents of the USDC sent: 100.91 is band 91):',
  '',
  bandTable(payoutOutcomeBands),
  '',
  '**Deposits** (wire and PIX on-ramps; the cents of the fiat deposited):',
  '',
  bandTable(onRampOutcomeBands),
  '',
  '**Withdrawals** (the cents of the USDC withdrawn):',
  '',
  bandTable(withdrawalOutcomeBands),
  '',
  '**Off-ramps** (the cents of the USDC paid out):',
  '',
  bandTable(offRampOutcomeBands),
  '',
  '## Verifying a webhook signature',
  '',
  'Events are POSTed to the one registered endpoint (`PUT /webhooks/endpoint`; see **Webhooks** for their payloads), signed as [Standard Webhooks](https://www.standardwebhooks.com/): `webhook-id` (the event id: dedupe on it, it is the same on every retry and redelivery), `webhook-timestamp` (Unix seconds) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>` keyed with the `whsec_` secret; two signatures, space-separated, for 24 hours after a rotation). Verify the raw body before parsing it; any library for the scheme does, for example `npm install standardwebhooks`:',
  '',
  '```js',
  "import { Webhook } from 'standardwebhooks';",
  '',
  "const hook = new Webhook(process.env.WEBHOOK_SECRET); // whsec_…, shown once by PUT /webhooks/endpoint",
  '',
  '// rawBody: the request body exactly as received (a string or Buffer), before any JSON parsing.',
  'export function receive(rawBody, headers) {',
  "  const event = hook.verify(rawBody, headers); // throws unless a signature matches and the timestamp is within 5 minutes",
  "  if (alreadyHandled(headers['webhook-id'])) return; // at least once: act on an id once, acknowledge every copy",
  '  handle(event.type, event.data);',
  '}',
  '```',
  '',
  'Answer any 2xx within 10 seconds to acknowledge; anything else is retried (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h), and `410 Gone` disables the endpoint. Events are not ordered: `data` carries the resource\'s state and timeline, so an older state arriving late can be recognised and ignored.',
].join('\n');

const info = {
  title: 'Cross-border payments and treasury API',
  description: conventions,
  license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
};

/** One tag per feature, in the contract's order; the Record type makes a new feature need a description. */
const tagDescriptions: Record<Feature, string> = {
  discovery: 'Health, capabilities, the calling key and this document.',
  quotes: 'Price a payment and lock the rate for about a minute.',
  payments: 'Send a stablecoin amount that is paid out in the destination currency.',
  batches: 'Up to 1000 payments on one rail, funded in a single transfer.',
  balance: 'The USDC balance of the home wallet.',
  wallets: 'Wallet accounts and their provider balance reports.',
  issuers: 'Stablecoin issuers and the accounts held with them.',
  'wallet-transfers': 'Not offered: moving USDC between wallets is done by withdrawals.',
  'issuer-mint': 'Not offered: minting at an issuer is not exposed.',
  'wire-transfers': 'Not offered: pay fiat out with an off-ramp.',
  'deposit-instructions': 'Where to wire USD or EUR, with the organization reference.',
  onramp: 'Bank wire deposits converted to USDC.',
  'onramp-pix': 'PIX (BRL) deposits converted to USDC.',
  'crypto-deposit': 'Addresses for USDC sent on chain.',
  withdrawals: 'USDC sent to an own EVM address.',
  offramp: 'USDC paid out as fiat to a registered bank account, and those accounts.',
  recipients: 'Saved recipients, usable by batch items.',
  team: 'Members, roles and invitations.',
  'api-keys': 'Rotating the organization key and member keys.',
  webhooks: 'The one webhook endpoint for signed event notifications, and the events sent to it with their delivery attempts.',
  notifications: 'Per-member choice of e-mailed events.',
  statements: 'Realized fees and volume for a period.',
  sandbox: 'Tools that only a sandbox (or the simulated environment) answers.',
};

/** How the reference page names each tag in its menu (`x-displayName`), and the groups of its menu (`x-tagGroups`). */
const tagNames: Record<Feature, string> = {
  discovery: 'Discovery',
  quotes: 'Quotes',
  payments: 'Payments',
  batches: 'Batches',
  balance: 'Balance',
  wallets: 'Wallets',
  issuers: 'Issuers',
  'wallet-transfers': 'Wallet transfers (not offered)',
  'issuer-mint': 'Issuer mint (not offered)',
  'wire-transfers': 'Wire transfers (not offered)',
  'deposit-instructions': 'Deposit instructions',
  onramp: 'Wire deposits',
  'onramp-pix': 'PIX deposits',
  'crypto-deposit': 'On-chain deposits',
  withdrawals: 'Withdrawals',
  offramp: 'Off-ramps',
  recipients: 'Recipients',
  team: 'Team',
  'api-keys': 'API keys',
  webhooks: 'Webhooks',
  notifications: 'E-mail notifications',
  statements: 'Statements',
  sandbox: 'Sandbox tools',
};

/** Every feature in exactly one group (a tag in no group would not be shown); checked by test/unit/openapi.test.ts. */
export const tagGroups: { name: string; tags: Feature[] }[] = [
  { name: 'Start here', tags: ['discovery'] },
  { name: 'Payments', tags: ['quotes', 'payments', 'batches', 'statements'] },
  { name: 'Balance and treasury', tags: ['balance', 'deposit-instructions', 'onramp', 'onramp-pix', 'crypto-deposit', 'withdrawals', 'offramp', 'wallets', 'issuers', 'wallet-transfers', 'issuer-mint', 'wire-transfers'] },
  { name: 'Organization', tags: ['recipients', 'team', 'api-keys'] },
  { name: 'Notifications', tags: ['webhooks', 'notifications'] },
  { name: 'Sandbox', tags: ['sandbox'] },
];

/** Discovery is the only feature wired on every environment; every other feature can answer 501. */
const alwaysWired: ReadonlySet<Feature> = new Set(['discovery']);

/** Error codes whose body carries fields beyond `{error, message}`. */
const errorBodies: Partial<Record<ErrorCode, z.core.$ZodType>> = {
  validation: ValidationErrorBody,
  beneficiary_incomplete: BeneficiaryIncompleteBody,
  compliance_hold: ComplianceHoldBody,
  insufficient_funds: InsufficientFundsBody,
  rate_limited: RateLimitedBody,
  not_implemented: NotImplementedBody,
};

const statusNames: Record<number, string> = {
  400: 'Bad request',
  401: 'Missing or invalid credentials',
  403: 'Authenticated but not allowed',
  404: 'Absent or not owned by the organization',
  409: 'Conflict',
  413: 'Request body too large',
  415: 'Request body is not JSON',
  422: 'Understood but cannot be done as asked',
  429: 'Rate limited; nothing was done, retry after `Retry-After` seconds with the same idempotency key',
  500: 'Internal error',
  501: 'Feature not wired on this environment',
  503: 'A dependency is unavailable; retry with backoff',
};

const rateLimitHeaders = {
  'ratelimit-limit': { $ref: '#/components/headers/RateLimitLimit' },
  'ratelimit-remaining': { $ref: '#/components/headers/RateLimitRemaining' },
  'ratelimit-reset': { $ref: '#/components/headers/RateLimitReset' },
};

function registerHeaders(registry: OpenAPIRegistry): void {
  registry.registerComponent('headers', 'RateLimitLimit', {
    description: "Capacity of the request's rate-limit bucket.",
    schema: { type: 'integer', minimum: 0 },
  });
  registry.registerComponent('headers', 'RateLimitRemaining', {
    description: 'Tokens left in the bucket.',
    schema: { type: 'integer', minimum: 0 },
  });
  registry.registerComponent('headers', 'RateLimitReset', {
    description: 'Seconds until the bucket is refilled.',
    schema: { type: 'integer', minimum: 0 },
  });
  registry.registerComponent('headers', 'RetryAfter', {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1 },
  });
}

/** Every code a row can answer: its own list plus the ones its auth, gates, input and feature imply. */
function errorCodesOf(definition: RouteDefinition): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  for (const code of definition.errors ?? []) {
    if (!(code in errorCodeStatus)) throw new Error(`${definition.operationId}: unknown error code ${code}`);
    codes.add(code as ErrorCode);
  }
  const { body, form, query, params } = definition.request ?? {};
  if (definition.auth === 'key') codes.add('unauthorized').add('rate_limited');
  if (definition.permission || definition.ownerOnly) codes.add('forbidden');
  if (definition.kyb) codes.add('kyb_required');
  // A malformed path parameter is refused by the same check (its issues start at `params`).
  if (body || form || query || params || takesNoBody(definition)) codes.add('validation');
  // Refusals of the raw body come before validation (content type, size, JSON syntax); a row that takes
  // no body refuses one it cannot read the same way.
  if (body || takesNoBody(definition)) codes.add('invalid_json').add('bad_request').add('payload_too_large').add('unsupported_media_type');
  if (form) codes.add('bad_request').add('payload_too_large').add('unsupported_media_type');
  if (params) codes.add('not_found');
  if (!alwaysWired.has(definition.feature)) codes.add('not_implemented');
  codes.add('internal').add('unavailable');
  return [...codes];
}

/** Error bodies with extra fields are components of their own; every other code is `Error` with its code. */
function errorSchema(codes: ErrorCode[]): SchemaObject | ReferenceObject {
  const alternatives: (SchemaObject | ReferenceObject)[] = codes.flatMap((code) => {
    const body = errorBodies[code];
    return body ? [{ $ref: `#/components/schemas/${classicTwin(body).meta()?.id}` }] : [];
  });
  const plain = codes.filter((code) => !errorBodies[code]);
  if (plain.length > 0) {
    alternatives.push({
      allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { error: { type: 'string', enum: plain } } }],
    });
  }
  return alternatives.length === 1 ? alternatives[0]! : { anyOf: alternatives };
}

/**
 * Statuses whose answer is the same on every keyed operation are one response component each, so the
 * document states them once instead of sixty times.
 */
const sharedResponseNames: Partial<Record<number, string>> = {
  401: 'Unauthorized',
  413: 'PayloadTooLarge',
  415: 'UnsupportedMediaType',
  429: 'TooManyRequests',
  500: 'InternalServerError',
  501: 'NotImplemented',
  503: 'ServiceUnavailable',
};

function errorResponses(
  definition: RouteDefinition,
  sharedResponses: Map<string, ResponseObject>,
  examples: RecordedOperation | undefined,
): Record<string, ResponseObject | ReferenceObject> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorCodesOf(definition)) {
    const status = errorCodeStatus[code];
    // A status the row documents as a success-shaped answer (health's 503) keeps the row's own shape.
    if (definition.responses[status]) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<string, ResponseObject | ReferenceObject> = {};
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    codes.sort();
    const headers = {
      // The bucket is charged only after the key is accepted, so a 401 carries no rate-limit headers.
      ...(definition.auth === 'key' && status !== 401 ? rateLimitHeaders : {}),
      ...(status === 429 ? { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } : {}),
    };
    const sharedName = sharedResponseNames[status];
    const shared = sharedName !== undefined && definition.auth === 'key' && codes.length === 1;
    const response: ResponseObject = {
      description: `${statusNames[status] ?? 'Error'}: ${codes.map((code) => `\`${code}\``).join(', ')}.`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      // A shared response is the same on every operation: an operation's own refusal is never put on it.
      content: { 'application/json': { schema: errorSchema(codes), ...(shared ? {} : examplesOf(examples?.responses[status], 'A refusal')) } },
    };
    if (shared) {
      const earlier = sharedResponses.get(sharedName);
      if (earlier && JSON.stringify(earlier) !== JSON.stringify(response)) {
        throw new Error(`${definition.operationId}: ${status} differs from the shared ${sharedName} response`);
      }
      sharedResponses.set(sharedName, response);
      responses[status] = { $ref: `#/components/responses/${sharedName}` };
    } else {
      responses[status] = response;
    }
  }
  return responses;
}

/**
 * Requests and answers recorded from the real local service (`npm run examples:record`,
 * schemas/examples/recorded.json): shown as each operation's examples, and held against the schemas
 * beside them by test/e2e/reference.test.ts, so they cannot drift from the contract.
 */
interface RecordedOperation {
  request?: unknown;
  responses: Record<string, unknown>;
}
const recordedOperations: Record<string, RecordedOperation | undefined> = recorded.operations;
const recordedWebhooks: Record<string, unknown> = recorded.webhooks;

function examplesOf(value: unknown, what: string): { examples: Record<string, { summary: string; value: unknown }> } | Record<string, never> {
  return value === undefined ? {} : { examples: { recorded: { summary: `${what}, recorded from the simulated environment`, value } } };
}

function operationOf(definition: RouteDefinition, sharedResponses: Map<string, ResponseObject>): RouteConfig {
  const examples = recordedOperations[definition.operationId];
  const { body, form, query, params } = definition.request ?? {};
  const successResponses: Record<string, ResponseConfig> = {};
  for (const [status, response] of Object.entries(definition.responses)) {
    const content = {
      ...(response.schema ? { 'application/json': { schema: classicTwin(response.schema), ...examplesOf(examples?.responses[status], 'An answer') } } : {}),
      ...(response.alsoAs ? { [response.alsoAs.mediaType]: { schema: z.string().meta({ description: response.alsoAs.description }) } } : {}),
      ...(response.html ? { 'text/html': { schema: z.string() } } : {}),
      ...(response.script ? { 'text/javascript': { schema: z.string() } } : {}),
    };
    successResponses[status] = {
      description: response.description,
      ...(definition.auth === 'key' ? { headers: rateLimitHeaders } : {}),
      ...(Object.keys(content).length > 0 ? { content } : {}),
    };
  }
  return {
    method: definition.method.toLowerCase() as RouteConfig['method'],
    path: definition.path,
    operationId: definition.operationId,
    summary: definition.summary,
    tags: [definition.feature],
    security: definition.auth === 'open' ? [] : [{ bearerAuth: [] }],
    description: operationDescription(definition),
    request: {
      // The route table types these as any zod schema; the generator needs objects, which they are.
      ...(params ? { params: classicTwin(params) as z.ZodObject } : {}),
      ...(query ? { query: classicTwin(query) as z.ZodObject } : {}),
      // A row that takes either documents both media types; an empty form is a form, so then none is required.
      ...(body || form
        ? {
            body: {
              required: !form,
              content: {
                ...(body ? { 'application/json': { schema: classicTwin(body), ...examplesOf(examples?.request, 'A request') } } : {}),
                ...(form ? { 'application/x-www-form-urlencoded': { schema: classicTwin(form) } } : {}),
              },
            },
          }
        : {}),
      ...(takesNoBody(definition) ? { body: noBody } : {}),
    },
    responses: { ...successResponses, ...errorResponses(definition, sharedResponses, examples) },
  };
}

/** What a row that takes no body accepts (docs/decisions/074). */
const noBody = {
  required: false,
  description: 'None. An empty object is accepted; any other body is refused (400) and nothing changes.',
  content: { 'application/json': { schema: z.strictObject({}) } },
};

/**
 * The operation's own words (functions/contract/descriptions.ts), then what its row says about who may
 * call it and what it costs, so the page states them the same way on every operation.
 */
function operationDescription(definition: RouteDefinition): string {
  const own = operationDescriptions[definition.operationId] ?? '';
  const bucket = definition.auth === 'key' && definition.handler !== notImplementedHandler
    ? `Rate bucket: \`${bucketOf(definition)}\`.`
    : '';
  const sandbox = definition.sandboxOnly ? 'A sandbox tool: answers 501 `not_implemented` on production.' : '';
  return [own, [accessNote(definition), bucket, sandbox].filter(Boolean).join(' ')].filter(Boolean).join('\n\n');
}

function accessNote(definition: RouteDefinition): string {
  const notes = [
    definition.permission ? `Needs permission \`${definition.permission}\`.` : '',
    definition.ownerOnly ? 'Owner only, with the organization key.' : '',
    definition.kyb ? 'Answers 403 `kyb_required` until the organization is verified (KYB).' : '',
  ];
  return notes.filter(Boolean).join(' ');
}

function registerWebhooks(registry: OpenAPIRegistry): void {
  const headers = z.object({
    'webhook-id': z.string().meta({ description: 'The event id (`evt_…`, as GET /events/{eventId} names it); the same on every attempt and redelivery of one event.' }),
    'webhook-timestamp': z.string().regex(/^\d+$/).meta({ description: 'Unix seconds when this attempt was signed.' }),
    'webhook-signature': z.string().meta({
      description:
        'Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` with the `whsec_` secret; several space-separated while a secret rotates.',
    }),
  });
  const receiverResponses = {
    200: { description: 'Any 2xx acknowledges the event. 3xx is a failure and is never followed.' },
    410: { description: 'Disables the endpoint; no further events are sent.' },
  };
  const events = [
    { name: 'transactionEvent', schema: TransactionEvent, summary: 'A payment reached PAID_OUT, RECONCILED, REFUNDED or IN_DOUBT.' },
    { name: 'onRampEvent', schema: OnRampEvent, summary: 'A deposit ended as DELIVERED or REFUNDED.' },
    { name: 'offRampEvent', schema: OffRampEvent, summary: 'An off-ramp reached PAID.' },
  ];
  for (const event of events) {
    registry.registerWebhook({
      method: 'post',
      path: event.name,
      operationId: event.name,
      summary: event.summary,
      description:
        'POSTed to the registered endpoint, at least once: the `webhook-id` header is the event id, the same on every attempt and redelivery; dedupe on it. Only a 2xx within 10 s acknowledges; 3xx is a failure and is never followed. Retries follow the Standard Webhooks schedule (immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h), a longer `Retry-After` is honoured; 410 Gone disables the endpoint, and so do five days of failures. Events are not ordered: `data` carries the resource\'s state and timeline, so an older state can be recognised and ignored. Shapes and schedule: docs/decisions/091.',
      tags: ['webhooks'],
      security: [],
      request: { headers, body: { required: true, content: { 'application/json': { schema: classicTwin(event.schema), ...examplesOf(recordedWebhooks[event.name], 'A delivery') } } } },
      responses: receiverResponses,
    });
  }
}

/**
 * Every schema the schema modules name with `z.meta({id})` is a component, even where only an annotated
 * copy of it is used (which the generator would inline; referenceInlineCopies points those back here) or
 * where it is referenced by name from a raw schema (the error bodies of errorSchema). The modules are
 * zod/mini; the generator reads each one's classic twin (classicTwin.ts), which is also where a copy's
 * inherited id is dropped.
 */
function namedSchemas() {
  const modules = [common, errors, discovery, quotes, transactions, batches, wallets, deposits, offramps, recipients, team, webhooks, notifications, statements, sandbox];
  return modules
    .flatMap((module) => Object.values(module))
    .filter((value) => value instanceof z.core.$ZodType)
    .map((value) => classicTwin(value))
    .filter((schema) => typeof schema.meta()?.id === 'string')
    .map((schema) => ({ type: 'schema' as const, schema }));
}

export interface OpenApiOptions {
  /** The customer's base address; without it the document carries a `{baseUrl}` server variable. */
  serverUrl?: string;
  /** The running service's version (`SERVICE_VERSION`); defaults to the package version. */
  version?: string;
}

export function buildOpenApiDocument(options: OpenApiOptions = {}): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'The organization key or a member key: `Authorization: Bearer <API_KEY>`.',
  });
  registerHeaders(registry);
  const sharedResponses = new Map<string, ResponseObject>();
  for (const definition of routes) registry.registerPath(operationOf(definition, sharedResponses));
  for (const [name, response] of sharedResponses) registry.registerComponent('responses', name, response);
  registerWebhooks(registry);

  const generator = new OpenApiGeneratorV31([...namedSchemas(), ...registry.definitions], { sortComponents: 'alphabetically' });
  const document = generator.generateDocument({
    openapi: '3.1.0',
    info: { ...info, version: options.version ?? packageJson.version },
    servers: [
      options.serverUrl
        ? { url: options.serverUrl }
        : {
            url: '{baseUrl}',
            description: 'Issued per customer.',
            variables: { baseUrl: { default: 'http://localhost:3000', description: 'The base address issued to you.' } },
          },
    ],
    security: [{ bearerAuth: [] }],
    tags: Object.entries(tagDescriptions).map(([name, description]) => ({ name, description, 'x-displayName': tagNames[name as Feature] })),
  });
  document['x-tagGroups'] = tagGroups;
  return nullableReferences(referenceInlineCopies(document));
}

/**
 * The generator writes a nullable named schema (`Timestamp.nullable()`) as
 * `allOf: [{$ref}, {type: ['string', 'null']}]`, which no `null` can satisfy (the `$ref` side is a
 * string). Say what zod means: the component or null.
 */
function nullableReferences(document: OpenAPIObject): OpenAPIObject {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (node === null || typeof node !== 'object') return node;
    const { allOf, ...rest } = node as { allOf?: unknown[] } & Record<string, unknown>;
    const [reference, nullable, ...others] = allOf ?? [];
    const types = (nullable as { type?: unknown } | undefined)?.type;
    if (others.length === 0 && (reference as { $ref?: unknown } | undefined)?.$ref && Object.keys(nullable as object).length === 1 && Array.isArray(types) && types.includes('null')) {
      return { ...visit(rest) as object, anyOf: [reference, { type: 'null' }] };
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, visit(value)]));
  };
  return visit(document) as OpenAPIObject;
}

/**
 * `Named.check(z.meta({description}))` makes an unnamed copy (its twin keeps no id), which the generator inlines.
 * Where an inline schema is exactly a named component apart from its description, point to the
 * component instead and keep the description beside the `$ref` (allowed in OpenAPI 3.1), so every
 * money object, beneficiary or status in the document is the one component, not a copy of it.
 */
function referenceInlineCopies(document: OpenAPIObject): OpenAPIObject {
  const components = Object.entries(document.components?.schemas ?? {});
  const withoutDescription = (schema: Record<string, unknown>) => JSON.stringify({ ...schema, description: undefined });
  const named = new Map<string, string[]>();
  for (const [name, schema] of components) {
    const key = withoutDescription(schema as Record<string, unknown>);
    named.set(key, [...(named.get(key) ?? []), name]);
  }
  const visit = (node: unknown, isComponentRoot: boolean): unknown => {
    if (Array.isArray(node)) return node.map((item) => visit(item, false));
    if (node === null || typeof node !== 'object') return node;
    const schema = node as Record<string, unknown>;
    const looksLikeSchema = 'type' in schema || 'anyOf' in schema || 'allOf' in schema;
    if (!isComponentRoot && looksLikeSchema) {
      // Only an unambiguous match: two components with the same structure would make the choice arbitrary.
      const matches = named.get(withoutDescription(schema));
      if (matches?.length === 1) {
        return { $ref: `#/components/schemas/${matches[0]}`, ...(schema.description ? { description: schema.description } : {}) };
      }
    }
    return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, visit(value, false)]));
  };
  const schemas = Object.fromEntries(components.map(([name, schema]) => [name, visit(schema, true) as SchemaObject]));
  const rest = visit({ ...document, components: { ...document.components, schemas: {} } }, false) as OpenAPIObject;
  return { ...rest, components: { ...rest.components, schemas } };
}
