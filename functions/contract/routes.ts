import type { z } from 'zod/mini';
import type { Permission } from '#domain/permissions.ts';
import type { Feature } from './features.ts';
import type { ProviderNeed } from './providers.ts';
import type { WorkflowName } from './workflows.ts';
import { Capabilities, Health, Me } from '#schemas/discovery.ts';
import { CreateQuoteBody, QuotePreviewResult } from '#schemas/quotes.ts';
import {
  CreateTransactionBody, ListTransactionsQuery, TransactionAccepted, TransactionList, TransactionParams, TransactionStatus,
} from '#schemas/transactions.ts';
import { BatchAccepted, BatchDetail, BatchList, BatchParams, CreateBatchBody, GetBatchQuery, ListBatchesQuery } from '#schemas/batches.ts';
import { Balance, IssuerList, IssuerParams, WalletAccount, WalletAccountList, WalletBalances, WalletParams } from '#schemas/wallets.ts';
import {
  CreateOnRampBody, CreatePixOnRampBody, CryptoDepositAddresses, DepositInstructions, ListOnRampsQuery, OnRampAccepted, OnRampList,
  OnRampParams, OnRampQuote, OnRampQuoteQuery, OnRampStatus, PixOnRampAccepted, PixOnRampQuote, PixOnRampQuoteQuery,
} from '#schemas/deposits.ts';
import {
  CreateWithdrawalBody, ListWithdrawalsQuery, WithdrawalAccepted, WithdrawalList, WithdrawalParams, WithdrawalQuote, WithdrawalQuoteQuery,
  WithdrawalStatus,
} from '#schemas/withdrawals.ts';
import {
  BeneficiaryList, BeneficiaryView, CreateBeneficiaryBody, CreateOffRampBody, ListOffRampsQuery, OffRampAccepted, OffRampList,
  OffRampParams, OffRampQuote, OffRampQuoteQuery, OffRampStatus,
} from '#schemas/offramps.ts';
import { CreateRecipientBody, Recipient, RecipientList, RecipientParams, UpdateRecipientBody } from '#schemas/recipients.ts';
import {
  AcceptInvitationBody, AcceptInvitationForm, AcceptInvitationQuery, AcceptedInvitation, InvitationLinkQuery, InvitationResult, InviteMemberBody, MemberList, MemberParams, RemovedMember,
  RotatedMemberKey, RotatedOrganizationKey, UpdateMemberBody, UpdatedMember,
} from '#schemas/team.ts';
import {
  DeletedWebhookEndpoint, EventDetail, EventList, EventParams, ListEventsQuery, PutWebhookEndpointBody, RedeliveryAccepted, RegisteredWebhookEndpoint,
  WebhookEndpoint,
} from '#schemas/webhooks.ts';
import {
  NotificationLinkQuery, NotificationPreferences, PutNotificationPreferencesBody, UnsubscribeForm, VerificationSent, VerifyEmailForm,
} from '#schemas/notifications.ts';
import { Statement, StatementQuery, statementCsvDescription } from '#schemas/statements.ts';
import {
  EurcTopUp, SandboxPrefill, SimulateOnRampPaymentParams, SimulateWireBody, SimulatedOnRampPayment, SimulatedWire, TopUpEurcBody,
} from '#schemas/sandbox.ts';

/**
 * The route table: the one list of endpoints. The CDK API stack makes one Lambda and one
 * HTTP API route per row; the local HTTP adapter routes to the same handler modules;
 * the OpenAPI document is generated from the same rows. Adding an endpoint means adding
 * a handler, its schemas and one row here.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Bucket = 'initiate' | 'write' | 'read';

/** The module that answers every unbuilt endpoint with 501 and its feature's reason. */
export const notImplementedHandler = 'functions/api/notImplemented.ts';

export interface RouteRequest {
  body?: z.ZodMiniType;
  /**
   * A body sent as `application/x-www-form-urlencoded` instead of JSON: only pages a person or a mail
   * client posts to (the verification link's form, RFC 8058 one-click unsubscribe; docs/decisions/094).
   * A row with both `body` and `form` takes either, told apart by the request's content type (the
   * invitation page's form beside the JSON API; the handler reads which from `bodyAs`).
   */
  form?: z.ZodMiniType;
  query?: z.ZodMiniType;
  params?: z.ZodMiniType;
}

export interface RouteResponse {
  description: string;
  schema?: z.ZodMiniType;
  /**
   * A page for a person (`text/html`): the links e-mailed to members open these. Beside a `schema`,
   * on a row that takes a form too, the page is the form's answer and the JSON the API's.
   */
  html?: true;
  /** A script served as it is (the reference page's, `text/javascript`; docs/decisions/114), not JSON. */
  script?: true;
  /** The same answer in another media type the caller may ask for with Accept (a statement as CSV): a text body. */
  alsoAs?: { mediaType: string; description: string };
}

export interface RouteDefinition<R extends RouteRequest = RouteRequest> {
  /** OpenAPI operationId; also names the Lambda function. */
  operationId: string;
  method: HttpMethod;
  /** API Gateway and OpenAPI style: `/treasury/onramp/{onRampId}`. */
  path: string;
  /** Module (relative to the project root) exporting `handler`. */
  handler: string;
  /** `key`: Authorization: Bearer <API key>. `open`: no credential. */
  auth: 'key' | 'open';
  permission?: Permission;
  /** Only the organization key (role owner) may call it. */
  ownerOnly?: boolean;
  /** Rate-limit bucket; GET is `read`, other methods `write` unless the row says `initiate`. */
  bucket?: Bucket;
  /** Answers 403 kyb_required until the organization is approved. */
  kyb: boolean;
  feature: Feature;
  summary: string;
  request?: R;
  /** Success responses by status. Error responses come from `errors`. */
  responses: Record<number, RouteResponse>;
  /** Error codes this endpoint documents beyond 401/429/500 (which every keyed endpoint has). */
  errors?: string[];
  /**
   * What the handler does to the table beyond its caller's rate bucket: `read` (the default for a
   * keyed GET), `write` (the default for other methods; a GET that stores something, such as a
   * quote, says so) or `none` (the default for an open GET, which has no key and no bucket). The
   * AWS wiring grants exactly this (lib/aws/serviceFunction.ts).
   */
  table?: TableAccess;
  /** The handler deletes items (a key rotated, a member removed): DeleteItem is granted only where a row says so. */
  deletes?: true;
  /** The handler writes many items in one BatchWriteItem (a batch's items): granted only where a row says so. */
  batchWrites?: true;
  /** Workflows the handler starts (states:StartExecution on those state machines only). */
  starts?: WorkflowName[];
  /** A sandbox tool: it fakes a payer or a balance, so it answers 501 on production (functions/platform/sandbox.ts). */
  sandboxOnly?: boolean;
  /** Provider ports the endpoint needs: checked before the handler runs (501 naming the feature where one is not wired). */
  needs?: ProviderNeed[];
  /** The handler e-mails through the mail port: in AWS it may send as the stage's SES identity (lib/aws/apiStack.ts). */
  sendsMail?: true;
  /**
   * Seals signing secrets with the secret box (store/secretBox.ts: webhook secrets, members'
   * unsubscribe keys): granted kms:GenerateDataKey on the secrets key in AWS (docs/decisions/092, 110).
   */
  sealsSecrets?: boolean;
  /** Opens sealed signing secrets (a member's unsubscribe key, to check a link): granted kms:Decrypt on that key (110). */
  opensSecrets?: boolean;
}

export type TableAccess = 'none' | 'read' | 'write';
/** Item actions no access level includes, granted to the functions that say they need them. */
export type TableExtra = 'DeleteItem' | 'BatchWriteItem';

/** The extras a row, task or rule asks for. */
export function tableExtrasOf(needs: { deletes?: true; batchWrites?: true }): TableExtra[] {
  return [...(needs.deletes ? ['DeleteItem' as const] : []), ...(needs.batchWrites ? ['BatchWriteItem' as const] : [])];
}

/** What a row's function needs, derived from the row: the AWS wiring grants this and nothing more. */
export interface RouteNeeds {
  table: TableAccess;
  /** Item actions beyond the access level's (lib/aws/serviceFunction.ts tableActions). */
  tableExtras: TableExtra[];
  starts: WorkflowName[];
  /** Signs or checks pagination cursors (the cursor key): every list that documents invalid_cursor. */
  cursors: boolean;
  /** Seals signing secrets (the KMS key's GenerateDataKey). */
  sealsSecrets: boolean;
  /** Opens sealed signing secrets (the KMS key's Decrypt). */
  opensSecrets: boolean;
}

export function routeNeeds(definition: RouteDefinition): RouteNeeds {
  if (definition.handler === notImplementedHandler) return { table: 'read', tableExtras: [], starts: [], cursors: false, sealsSecrets: false, opensSecrets: false };
  return {
    table: definition.table ?? (definition.method !== 'GET' ? 'write' : definition.auth === 'open' ? 'none' : 'read'),
    tableExtras: tableExtrasOf(definition),
    starts: definition.starts ?? [],
    cursors: definition.errors?.includes('invalid_cursor') ?? false,
    sealsSecrets: definition.sealsSecrets ?? false,
    opensSecrets: definition.opensSecrets ?? false,
  };
}

export function route<R extends RouteRequest>(definition: RouteDefinition<R>): RouteDefinition<R> {
  return definition;
}

export function bucketOf(definition: RouteDefinition): Bucket {
  return definition.bucket ?? (definition.method === 'GET' ? 'read' : 'write');
}

/**
 * A row that changes something without a body schema takes no body: its input check accepts none or `{}`
 * and refuses anything else (docs/decisions/074). The unbuilt rows are not among them: they answer 501
 * whatever is sent, and their body is not defined yet.
 */
export function takesNoBody(definition: RouteDefinition): boolean {
  return definition.method !== 'GET' && !definition.request?.body && !definition.request?.form && definition.handler !== notImplementedHandler;
}

/** `GET /me`: a row's key, and a request's (any method, the path as sent) to look one up by. */
export function routeKey(definition: { method: string; path: string }): string {
  return `${definition.method} ${definition.path}`;
}

// Rows are made of literals and names only, each a pure call (no spread, no member read): esbuild then
// drops every row, and every schema module, that a function does not use (docs/decisions/126).
const acceptedText = 'Started; read the outcome from the matching GET or a webhook.';
const okText = 'OK';
const createdText = 'Created';
const planned = notImplementedHandler;

// ---- Discovery -------------------------------------------------------------------------

export const getHealth = /* @__PURE__ */ route({
  operationId: 'getHealth', method: 'GET', path: '/health', handler: 'functions/api/discovery/getHealth.ts',
  auth: 'open', kyb: false, feature: 'discovery', summary: 'Service health; 503 degraded when the workflow engine is unreachable.',
  responses: {
    200: { description: 'Healthy', schema: Health },
    503: { description: 'Degraded: the workflow engine is unreachable and no payment can start.', schema: Health },
  },
});

export const getCapabilities = /* @__PURE__ */ route({
  operationId: 'getCapabilities', method: 'GET', path: '/capabilities', handler: 'functions/api/discovery/getCapabilities.ts',
  auth: 'open', kyb: false, feature: 'discovery', summary: 'Environment, corridors and the status of every feature.',
  responses: { 200: { description: 'Capabilities', schema: Capabilities } },
});

export const getMe = /* @__PURE__ */ route({
  operationId: 'getMe', method: 'GET', path: '/me', handler: 'functions/api/discovery/getMe.ts',
  auth: 'key', kyb: false, feature: 'discovery', summary: 'The organization and role behind the calling key.',
  responses: { 200: { description: 'The caller', schema: Me } },
});

export const getOpenApi = /* @__PURE__ */ route({
  operationId: 'getOpenApi', method: 'GET', path: '/openapi.json', handler: 'functions/api/discovery/getOpenApi.ts',
  auth: 'open', kyb: false, feature: 'discovery', summary: 'This contract as an OpenAPI 3.1 document.',
  responses: { 200: { description: 'OpenAPI 3.1 document' } },
});

/** The API reference (docs/decisions/114): a page that renders GET /openapi.json with the script below, both served here. */
export const getReference = /* @__PURE__ */ route({
  operationId: 'getReference', method: 'GET', path: '/docs', handler: 'functions/api/discovery/getReference.ts',
  auth: 'open', kyb: false, feature: 'discovery', summary: 'This reference, as a page for a browser.',
  responses: { 200: { description: 'The page; its script renders GET /openapi.json.', html: true } },
});

export const getReferenceScript = /* @__PURE__ */ route({
  operationId: 'getReferenceScript', method: 'GET', path: '/docs/reference.js', handler: 'functions/api/discovery/getReferenceScript.ts',
  auth: 'open', kyb: false, feature: 'discovery', summary: "The reference page's script (Redoc), pre-compressed.",
  responses: {
    200: { description: 'The script, brotli or gzip as Accept-Encoding allows; cacheable for a day.', script: true },
    304: { description: 'Not modified: the ETag sent in If-None-Match is still the script\'s.' },
  },
});

// ---- Quotes and payments -----------------------------------------------------------------

export const createQuote = /* @__PURE__ */ route({
  operationId: 'createQuote', method: 'POST', path: '/quotes', handler: 'functions/api/quotes/createQuote.ts', auth: 'key',
  permission: 'payment.initiate', kyb: false, feature: 'quotes', summary: 'Price a payment and lock the rate for about a minute.',
  request: { body: CreateQuoteBody }, responses: { 200: { description: okText, schema: QuotePreviewResult } }, errors: ['validation', 'forbidden', 'no_route_for_chain', 'not_home_wallet', 'quote_unavailable'],
});
export const createTransaction = /* @__PURE__ */ route({
  operationId: 'createTransaction', method: 'POST', path: '/transactions', handler: 'functions/api/transactions/createTransaction.ts', starts: ['payment'], auth: 'key',
  permission: 'payment.initiate', bucket: 'initiate', kyb: true, feature: 'payments', summary: 'Send a payment.',
  request: { body: CreateTransactionBody }, responses: { 202: { description: acceptedText, schema: TransactionAccepted } },
  errors: ['beneficiary_incomplete', 'validation', 'compliance_hold', 'forbidden', 'kyb_required', 'ambiguous_home_wallet', 'insufficient_funds', 'no_home_wallet', 'not_home_wallet', 'quote_expired', 'quote_mismatch', 'quote_not_found', 'wallet_chain_unknown', 'idempotency_key_reused', 'unavailable'],
});
export const listTransactions = /* @__PURE__ */ route({
  operationId: 'listTransactions', method: 'GET', path: '/transactions', handler: 'functions/api/transactions/listTransactions.ts', auth: 'key',
  kyb: false, feature: 'payments', summary: 'Payments, newest first.', request: { query: ListTransactionsQuery }, responses: { 200: { description: okText, schema: TransactionList } }, errors: ['invalid_cursor', 'validation'],
});
export const getTransaction = /* @__PURE__ */ route({
  operationId: 'getTransaction', method: 'GET', path: '/transactions/{transactionId}', handler: 'functions/api/transactions/getTransaction.ts', auth: 'key',
  kyb: false, feature: 'payments', summary: 'Status of one payment.', request: { params: TransactionParams }, responses: { 200: { description: okText, schema: TransactionStatus } }, errors: ['not_found'],
});

// ---- Batch payouts -----------------------------------------------------------------------

export const createBatch = /* @__PURE__ */ route({
  operationId: 'createBatch', method: 'POST', path: '/batches', handler: 'functions/api/batches/createBatch.ts', starts: ['batch'], auth: 'key', batchWrites: true, deletes: true,
  permission: 'payment.initiate', bucket: 'initiate', kyb: true, feature: 'batches', summary: 'Send up to 1000 payments on one rail.',
  request: { body: CreateBatchBody }, responses: { 202: { description: acceptedText, schema: BatchAccepted } },
  errors: ['duplicate_item_ref', 'invalid_send_amount', 'unknown_recipient', 'validation', 'forbidden', 'kyb_required', 'idempotency_key_conflict', 'ambiguous_home_wallet', 'no_home_wallet', 'not_home_wallet', 'wallet_chain_unknown', 'unavailable'],
});
export const listBatches = /* @__PURE__ */ route({
  operationId: 'listBatches', method: 'GET', path: '/batches', handler: 'functions/api/batches/listBatches.ts', auth: 'key',
  kyb: false, feature: 'batches', summary: 'Batches, newest first.', request: { query: ListBatchesQuery }, responses: { 200: { description: okText, schema: BatchList } }, errors: ['invalid_cursor', 'validation'],
});
export const getBatch = /* @__PURE__ */ route({
  operationId: 'getBatch', method: 'GET', path: '/batches/{batchId}', handler: 'functions/api/batches/getBatch.ts', auth: 'key',
  kyb: false, feature: 'batches', summary: 'One batch with a page of its items.', request: { params: BatchParams, query: GetBatchQuery }, responses: { 200: { description: okText, schema: BatchDetail } }, errors: ['not_found', 'invalid_cursor', 'validation'],
});

// ---- Balance and wallets -----------------------------------------------------------------

export const getBalance = /* @__PURE__ */ route({
  operationId: 'getBalance', method: 'GET', path: '/balance', handler: 'functions/api/balance/getBalance.ts', auth: 'key',
  kyb: false, feature: 'balance', summary: "The organization's USDC: available, settling and their total.", responses: { 200: { description: okText, schema: Balance } },
});
export const listWallets = /* @__PURE__ */ route({
  operationId: 'listWallets', method: 'GET', path: '/wallets', handler: 'functions/api/wallets/listWallets.ts', auth: 'key', needs: ['custody'],
  kyb: false, feature: 'wallets', summary: "The organization's wallet accounts, whole with `count` (no balances).", responses: { 200: { description: okText, schema: WalletAccountList } },
});
export const getWallet = /* @__PURE__ */ route({
  operationId: 'getWallet', method: 'GET', path: '/wallets/{walletId}', handler: 'functions/api/wallets/getWallet.ts', auth: 'key', needs: ['custody'],
  kyb: false, feature: 'wallets', summary: 'One wallet account, by service id or externalId.', request: { params: WalletParams }, responses: { 200: { description: okText, schema: WalletAccount } }, errors: ['not_found'],
});
export const getWalletBalances = /* @__PURE__ */ route({
  operationId: 'getWalletBalances', method: 'GET', path: '/wallets/{walletId}/balances', handler: 'functions/api/wallets/getWalletBalances.ts', auth: 'key', needs: ['custody'],
  kyb: false, feature: 'wallets', summary: "A wallet provider's balance report (501 when no wallet provider is configured; 503 while the wallet is still being opened).", request: { params: WalletParams }, responses: { 200: { description: okText, schema: WalletBalances } }, errors: ['not_found', 'unavailable'],
});
export const listIssuerAccounts = /* @__PURE__ */ route({
  operationId: 'listIssuerAccounts', method: 'GET', path: '/issuers/accounts', handler: 'functions/api/issuers/listIssuerAccounts.ts', auth: 'key', needs: ['issuer'],
  kyb: false, feature: 'issuers', summary: "The organization's accounts at issuers (kind `issuer_account`), whole with `count`.", responses: { 200: { description: okText, schema: WalletAccountList } },
});
export const listIssuers = /* @__PURE__ */ route({
  operationId: 'listIssuers', method: 'GET', path: '/issuers', handler: 'functions/api/issuers/listIssuers.ts', auth: 'key', needs: ['issuer'],
  kyb: false, feature: 'issuers', summary: 'The issuer catalogue: who issues which stablecoins on which networks.', responses: { 200: { description: okText, schema: IssuerList } },
});
export const createWalletTransfer = /* @__PURE__ */ route({
  operationId: 'createWalletTransfer', method: 'POST', path: '/wallets/{walletId}/transfers', handler: notImplementedHandler, auth: 'key',
  kyb: false, feature: 'wallet-transfers', summary: 'Not offered: answers 501 on every environment; move USDC out with a withdrawal.', request: { params: WalletParams }, responses: {},
});
export const mintAtIssuer = /* @__PURE__ */ route({
  operationId: 'mintAtIssuer', method: 'POST', path: '/issuers/{issuerId}/mint', handler: notImplementedHandler, auth: 'key',
  kyb: false, feature: 'issuer-mint', summary: 'Not offered: answers 501 on every environment; USDC comes in through deposits.', request: { params: IssuerParams }, responses: {},
});
export const createWireTransfer = /* @__PURE__ */ route({
  operationId: 'createWireTransfer', method: 'POST', path: '/banking/wire-transfers', handler: notImplementedHandler, auth: 'key',
  kyb: false, feature: 'wire-transfers', summary: 'Not offered: answers 501 on every environment; pay fiat out with an off-ramp (POST /treasury/offramp).', responses: {},
});

/**
 * The rows functions/api/notImplemented.ts answers, named here so that its bundle holds these rows and
 * their schemas only, not the whole table (docs/decisions/129). test/unit/openapi.test.ts checks that
 * they are exactly the rows whose handler is notImplementedHandler.
 */
export const unbuiltRoutes: RouteDefinition[] = [createWalletTransfer, mintAtIssuer, createWireTransfer];

// ---- Deposits ----------------------------------------------------------------------------

export const getDepositInstructions = /* @__PURE__ */ route({
  operationId: 'getDepositInstructions', method: 'GET', path: '/treasury/deposit-instructions', handler: 'functions/api/deposits/getDepositInstructions.ts', auth: 'key',
  kyb: true, feature: 'deposit-instructions', summary: "Where to wire USD or EUR, with the organization's one reference (501 where no house account is configured).", responses: { 200: { description: okText, schema: DepositInstructions } }, errors: ['kyb_required'],
});
export const getOnRampQuote = /* @__PURE__ */ route({
  operationId: 'getOnRampQuote', method: 'GET', path: '/treasury/onramp/quote', handler: 'functions/api/onRamps/getOnRampQuote.ts', auth: 'key', needs: ['onRamp'],
  kyb: false, feature: 'onramp', summary: 'Price a wire deposit.', request: { query: OnRampQuoteQuery }, responses: { 200: { description: okText, schema: OnRampQuote } }, errors: ['validation'],
});
export const createOnRamp = /* @__PURE__ */ route({
  operationId: 'createOnRamp', method: 'POST', path: '/treasury/onramp', handler: 'functions/api/onRamps/createOnRamp.ts', starts: ['onRamp'], auth: 'key', needs: ['onRamp'],
  permission: 'treasury.move', kyb: true, feature: 'onramp', summary: 'Open a wire deposit.', request: { body: CreateOnRampBody }, responses: { 202: { description: acceptedText, schema: OnRampAccepted } },
  errors: ['validation', 'forbidden', 'kyb_required', 'idempotency_key_conflict', 'idempotency_key_reused', 'ambiguous_home_wallet', 'no_home_wallet'],
});
export const listOnRamps = /* @__PURE__ */ route({
  operationId: 'listOnRamps', method: 'GET', path: '/treasury/onramps', handler: 'functions/api/onRamps/listOnRamps.ts', auth: 'key', needs: ['onRamp'],
  kyb: false, feature: 'onramp', summary: 'Deposits, newest first.', request: { query: ListOnRampsQuery }, responses: { 200: { description: okText, schema: OnRampList } }, errors: ['invalid_cursor', 'validation'],
});
export const getOnRamp = /* @__PURE__ */ route({
  operationId: 'getOnRamp', method: 'GET', path: '/treasury/onramp/{onRampId}', handler: 'functions/api/onRamps/getOnRamp.ts', auth: 'key', needs: ['onRamp'],
  kyb: false, feature: 'onramp', summary: 'Status of one wire or PIX deposit.', request: { params: OnRampParams }, responses: { 200: { description: okText, schema: OnRampStatus } }, errors: ['not_found'],
});
export const getPixOnRampQuote = /* @__PURE__ */ route({
  operationId: 'getPixOnRampQuote', method: 'GET', path: '/treasury/onramp/pix/quote', handler: 'functions/api/onRamps/getPixOnRampQuote.ts', auth: 'key', needs: ['onRamp'],
  kyb: false, feature: 'onramp-pix', summary: 'Price a PIX deposit.', request: { query: PixOnRampQuoteQuery }, responses: { 200: { description: okText, schema: PixOnRampQuote } }, errors: ['validation'],
});
export const createPixOnRamp = /* @__PURE__ */ route({
  operationId: 'createPixOnRamp', method: 'POST', path: '/treasury/onramp/pix', handler: 'functions/api/onRamps/createPixOnRamp.ts', starts: ['onRamp'], auth: 'key', needs: ['onRamp'],
  permission: 'treasury.move', kyb: true, feature: 'onramp-pix', summary: 'Open a PIX deposit (BR Code).', request: { body: CreatePixOnRampBody }, responses: { 202: { description: acceptedText, schema: PixOnRampAccepted } },
  errors: ['validation', 'forbidden', 'kyb_required', 'idempotency_key_conflict', 'idempotency_key_reused', 'pix_onramp_unavailable'],
});
export const getCryptoDeposit = /* @__PURE__ */ route({
  operationId: 'getCryptoDeposit', method: 'GET', path: '/treasury/crypto-deposit', handler: 'functions/api/deposits/getCryptoDeposit.ts', auth: 'key', needs: ['custody'],
  kyb: false, feature: 'crypto-deposit', summary: 'Addresses for USDC sent on chain: the home network and the networks moved home, with the move fee.', responses: { 200: { description: okText, schema: CryptoDepositAddresses } }, errors: ['no_home_wallet', 'ambiguous_home_wallet', 'unavailable'],
});

// ---- Withdrawals and off-ramps -----------------------------------------------------------

export const getWithdrawalQuote = /* @__PURE__ */ route({
  operationId: 'getWithdrawalQuote', method: 'GET', path: '/treasury/withdrawals/quote', handler: 'functions/api/withdrawals/getWithdrawalQuote.ts', auth: 'key', needs: ['chain'],
  kyb: false, feature: 'withdrawals', summary: 'Price a USDC withdrawal.', request: { query: WithdrawalQuoteQuery }, responses: { 200: { description: okText, schema: WithdrawalQuote } }, errors: ['validation', 'quote_unavailable', 'unsupported_network', 'no_home_wallet', 'ambiguous_home_wallet'],
});
export const createWithdrawal = /* @__PURE__ */ route({
  operationId: 'createWithdrawal', method: 'POST', path: '/treasury/withdrawals', handler: 'functions/api/withdrawals/createWithdrawal.ts', starts: ['withdrawal'], auth: 'key', needs: ['chain'],
  permission: 'treasury.move', kyb: true, feature: 'withdrawals', summary: 'Send USDC to an own EVM address.', request: { body: CreateWithdrawalBody }, responses: { 202: { description: acceptedText, schema: WithdrawalAccepted } },
  errors: ['validation', 'forbidden', 'kyb_required', 'compliance_hold', 'idempotency_key_reused', 'idempotency_key_conflict', 'ambiguous_home_wallet', 'no_home_wallet', 'quote_unavailable', 'unsupported_network'],
});
export const listWithdrawals = /* @__PURE__ */ route({
  operationId: 'listWithdrawals', method: 'GET', path: '/treasury/withdrawals', handler: 'functions/api/withdrawals/listWithdrawals.ts', auth: 'key', needs: ['chain'],
  kyb: false, feature: 'withdrawals', summary: 'Withdrawals, newest first.', request: { query: ListWithdrawalsQuery }, responses: { 200: { description: okText, schema: WithdrawalList } }, errors: ['invalid_cursor', 'validation'],
});
export const getWithdrawal = /* @__PURE__ */ route({
  operationId: 'getWithdrawal', method: 'GET', path: '/treasury/withdrawals/{withdrawalId}', handler: 'functions/api/withdrawals/getWithdrawal.ts', auth: 'key', needs: ['chain'],
  kyb: false, feature: 'withdrawals', summary: 'Status of one withdrawal.', request: { params: WithdrawalParams }, responses: { 200: { description: okText, schema: WithdrawalStatus } }, errors: ['not_found'],
});
export const createBeneficiary = /* @__PURE__ */ route({
  operationId: 'createBeneficiary', method: 'POST', path: '/treasury/beneficiaries', handler: 'functions/api/offRamps/createBeneficiary.ts', auth: 'key', needs: ['offRamp'],
  permission: 'beneficiary.manage', kyb: true, feature: 'offramp', summary: 'Register an off-ramp bank account (at most 500 per organization, never deleted: 409 conflict with `limit` beyond).', request: { body: CreateBeneficiaryBody }, responses: { 201: { description: createdText, schema: BeneficiaryView } },
  errors: ['validation', 'forbidden', 'kyb_required', 'compliance_hold', 'conflict'],
});
export const listBeneficiaries = /* @__PURE__ */ route({
  operationId: 'listBeneficiaries', method: 'GET', path: '/treasury/beneficiaries', handler: 'functions/api/offRamps/listBeneficiaries.ts', auth: 'key', needs: ['offRamp'],
  kyb: false, feature: 'offramp', summary: 'Registered off-ramp beneficiaries.', responses: { 200: { description: okText, schema: BeneficiaryList } },
});
export const getOffRampQuote = /* @__PURE__ */ route({
  operationId: 'getOffRampQuote', method: 'GET', path: '/treasury/offramp/quote', handler: 'functions/api/offRamps/getOffRampQuote.ts', table: 'write', auth: 'key', needs: ['offRamp'],
  kyb: false, feature: 'offramp', summary: 'Price an off-ramp.', request: { query: OffRampQuoteQuery }, responses: { 200: { description: okText, schema: OffRampQuote } }, errors: ['validation'],
});
export const createOffRamp = /* @__PURE__ */ route({
  operationId: 'createOffRamp', method: 'POST', path: '/treasury/offramp', handler: 'functions/api/offRamps/createOffRamp.ts', starts: ['offRamp'], auth: 'key', needs: ['offRamp'],
  permission: 'treasury.move', kyb: true, feature: 'offramp', summary: 'Pay USDC out as fiat to a beneficiary.', request: { body: CreateOffRampBody }, responses: { 202: { description: acceptedText, schema: OffRampAccepted } },
  errors: ['validation', 'forbidden', 'kyb_required', 'compliance_hold', 'idempotency_key_conflict', 'not_home_chain', 'quote_already_used', 'quote_mismatch', 'quote_not_found', 'ambiguous_home_wallet', 'no_home_wallet'],
});
export const listOffRamps = /* @__PURE__ */ route({
  operationId: 'listOffRamps', method: 'GET', path: '/treasury/offramps', handler: 'functions/api/offRamps/listOffRamps.ts', auth: 'key', needs: ['offRamp'],
  kyb: false, feature: 'offramp', summary: 'Off-ramps, newest first.', request: { query: ListOffRampsQuery }, responses: { 200: { description: okText, schema: OffRampList } }, errors: ['invalid_cursor', 'validation'],
});
export const getOffRamp = /* @__PURE__ */ route({
  operationId: 'getOffRamp', method: 'GET', path: '/treasury/offramp/{offRampId}', handler: 'functions/api/offRamps/getOffRamp.ts', auth: 'key', needs: ['offRamp'],
  kyb: false, feature: 'offramp', summary: 'Status of one off-ramp.', request: { params: OffRampParams }, responses: { 200: { description: okText, schema: OffRampStatus } }, errors: ['not_found'],
});

// ---- Recipients --------------------------------------------------------------------------

export const listRecipients = /* @__PURE__ */ route({
  operationId: 'listRecipients', method: 'GET', path: '/recipients', handler: 'functions/api/recipients/listRecipients.ts', auth: 'key',
  permission: 'recipient.read', kyb: false, feature: 'recipients', summary: 'Saved recipients.', responses: { 200: { description: okText, schema: RecipientList } }, errors: ['forbidden'],
});
export const createRecipient = /* @__PURE__ */ route({
  operationId: 'createRecipient', method: 'POST', path: '/recipients', handler: 'functions/api/recipients/createRecipient.ts', auth: 'key',
  permission: 'recipient.manage', kyb: false, feature: 'recipients', summary: 'Save a recipient (at most 500 per organization: 409 conflict with `limit` beyond).', request: { body: CreateRecipientBody }, responses: { 201: { description: createdText, schema: Recipient } }, errors: ['validation', 'forbidden', 'conflict'],
});
export const updateRecipient = /* @__PURE__ */ route({
  operationId: 'updateRecipient', method: 'PATCH', path: '/recipients/{recipientId}', handler: 'functions/api/recipients/updateRecipient.ts', auth: 'key',
  permission: 'recipient.manage', kyb: false, feature: 'recipients', summary: 'Change a saved recipient.', request: { params: RecipientParams, body: UpdateRecipientBody }, responses: { 200: { description: okText, schema: Recipient } }, errors: ['validation', 'forbidden', 'not_found'],
});
export const deleteRecipient = /* @__PURE__ */ route({
  operationId: 'deleteRecipient', method: 'DELETE', path: '/recipients/{recipientId}', handler: 'functions/api/recipients/deleteRecipient.ts', auth: 'key', deletes: true,
  permission: 'recipient.manage', kyb: false, feature: 'recipients', summary: 'Delete a saved recipient.', request: { params: RecipientParams }, responses: { 200: { description: okText, schema: Recipient } }, errors: ['forbidden', 'not_found'],
});

// ---- Team and API keys -------------------------------------------------------------------

export const listMembers = /* @__PURE__ */ route({
  operationId: 'listMembers', method: 'GET', path: '/members', handler: 'functions/api/team/listMembers.ts', auth: 'key',
  permission: 'member.read', kyb: false, feature: 'team', summary: 'Team members.', responses: { 200: { description: okText, schema: MemberList } }, errors: ['forbidden'],
});
export const inviteMember = /* @__PURE__ */ route({
  operationId: 'inviteMember', method: 'POST', path: '/members/invitations', handler: 'functions/api/team/inviteMember.ts', auth: 'key',
  permission: 'member.invite', kyb: false, feature: 'team', sendsMail: true, summary: 'Invite a member by e-mail (a team holds at most 2,000 members and pending invitations: 409 conflict with `limit` beyond).', request: { body: InviteMemberBody }, responses: { 201: { description: createdText, schema: InvitationResult } }, errors: ['validation', 'forbidden', 'conflict'],
});
export const resendInvitation = /* @__PURE__ */ route({
  operationId: 'resendInvitation', method: 'POST', path: '/members/{memberId}/invitations', handler: 'functions/api/team/resendInvitation.ts', auth: 'key',
  permission: 'member.invite', kyb: false, feature: 'team', sendsMail: true, summary: 'Re-send an invitation with a fresh link (at most 2 invitation e-mails a minute and 6 a day to one address).', request: { params: MemberParams }, responses: { 200: { description: okText, schema: InvitationResult } }, errors: ['forbidden', 'not_found', 'conflict'],
});
/** The invitation link's pages: what a used, expired, rescinded, replaced or unknown link says (docs/decisions/112). */
const invitationPageGone = { description: 'The link was used, has expired, was rescinded or replaced by a newer one, or was never issued: a page saying which and what to do.', html: true as const };
export const invitationPage = /* @__PURE__ */ route({
  operationId: 'invitationPage', method: 'GET', path: '/invitations/accept', handler: 'functions/api/team/invitationPage.ts', auth: 'open', table: 'read',
  kyb: false, feature: 'team', summary: 'The invitation link: a page naming the organization, the role and who invited, with one Accept button; a GET accepts nothing (link scanners follow links).', request: { query: InvitationLinkQuery },
  responses: { 200: { description: 'A page asking to accept.', html: true }, 410: invitationPageGone }, errors: ['validation'],
});
export const acceptInvitation = /* @__PURE__ */ route({
  operationId: 'acceptInvitation', method: 'POST', path: '/invitations/accept', handler: 'functions/api/team/acceptInvitation.ts', auth: 'open',
  kyb: false, feature: 'team', summary: "Accept an invitation; returns the member's key once. As JSON (the API), or as the invitation page's form (`?token=`, answered with a page showing the key once).",
  request: { query: AcceptInvitationQuery, body: AcceptInvitationBody, form: AcceptInvitationForm },
  responses: { 200: { description: okText, schema: AcceptedInvitation, html: true }, 410: invitationPageGone }, errors: ['invalid_invite', 'validation'],
});
export const updateMember = /* @__PURE__ */ route({
  operationId: 'updateMember', method: 'PATCH', path: '/members/{memberId}', handler: 'functions/api/team/updateMember.ts', auth: 'key',
  permission: 'member.manage', kyb: false, feature: 'team', summary: "Change a member's role.", request: { params: MemberParams, body: UpdateMemberBody }, responses: { 200: { description: okText, schema: UpdatedMember } }, errors: ['validation', 'forbidden', 'not_found'],
});
export const removeMember = /* @__PURE__ */ route({
  operationId: 'removeMember', method: 'DELETE', path: '/members/{memberId}', handler: 'functions/api/team/removeMember.ts', auth: 'key', deletes: true,
  permission: 'member.manage', kyb: false, feature: 'team', summary: 'Remove a member or rescind an invitation.', request: { params: MemberParams }, responses: { 200: { description: okText, schema: RemovedMember } }, errors: ['forbidden', 'not_found'],
});
export const rotateMemberKey = /* @__PURE__ */ route({
  operationId: 'rotateMemberKey', method: 'POST', path: '/members/me/api-key', handler: 'functions/api/keys/rotateMemberKey.ts', auth: 'key', deletes: true, sealsSecrets: true,
  kyb: false, feature: 'api-keys', summary: "Reissue the calling member's key; the previous one stops at once.", responses: { 200: { description: okText, schema: RotatedMemberKey } }, errors: ['not_found', 'member_required'],
});
export const rotateOrganizationKey = /* @__PURE__ */ route({
  operationId: 'rotateOrganizationKey', method: 'POST', path: '/api-keys/rotate', handler: 'functions/api/keys/rotateOrganizationKey.ts', auth: 'key', deletes: true,
  ownerOnly: true, kyb: false, feature: 'api-keys', summary: 'Rotate the organization key; the calling key stops at once.', responses: { 200: { description: okText, schema: RotatedOrganizationKey } }, errors: ['forbidden', 'not_found'],
});

// ---- Webhooks and e-mail notifications ---------------------------------------------------

export const getWebhookEndpoint = /* @__PURE__ */ route({
  operationId: 'getWebhookEndpoint', method: 'GET', path: '/webhooks/endpoint', handler: 'functions/api/webhooks/getWebhookEndpoint.ts', auth: 'key',
  kyb: false, feature: 'webhooks', summary: 'The registered webhook endpoint (404 when none is).', responses: { 200: { description: okText, schema: WebhookEndpoint } }, errors: ['not_found'],
});
export const putWebhookEndpoint = /* @__PURE__ */ route({
  operationId: 'putWebhookEndpoint', method: 'PUT', path: '/webhooks/endpoint', handler: 'functions/api/webhooks/putWebhookEndpoint.ts', auth: 'key', sealsSecrets: true,
  permission: 'webhook.manage', kyb: false, feature: 'webhooks', summary: 'Register or replace the webhook endpoint; issue or rotate its signing secret.', request: { body: PutWebhookEndpointBody }, responses: { 200: { description: okText, schema: RegisteredWebhookEndpoint } }, errors: ['validation', 'forbidden', 'conflict'],
});
export const deleteWebhookEndpoint = /* @__PURE__ */ route({
  operationId: 'deleteWebhookEndpoint', method: 'DELETE', path: '/webhooks/endpoint', handler: 'functions/api/webhooks/deleteWebhookEndpoint.ts', auth: 'key', deletes: true,
  permission: 'webhook.manage', kyb: false, feature: 'webhooks', summary: 'Stop webhook delivery at once.', responses: { 200: { description: okText, schema: DeletedWebhookEndpoint } }, errors: ['forbidden', 'not_found'],
});
export const listEvents = /* @__PURE__ */ route({
  operationId: 'listEvents', method: 'GET', path: '/events', handler: 'functions/api/webhooks/listEvents.ts', auth: 'key',
  kyb: false, feature: 'webhooks', summary: 'Events of the seven webhook types, newest first, kept 30 days.', request: { query: ListEventsQuery }, responses: { 200: { description: okText, schema: EventList } }, errors: ['invalid_cursor', 'validation'],
});
export const getEvent = /* @__PURE__ */ route({
  operationId: 'getEvent', method: 'GET', path: '/events/{eventId}', handler: 'functions/api/webhooks/getEvent.ts', auth: 'key',
  kyb: false, feature: 'webhooks', summary: 'One event as delivered, with its delivery attempts.', request: { params: EventParams }, responses: { 200: { description: okText, schema: EventDetail } }, errors: ['not_found'],
});
export const redeliverEvent = /* @__PURE__ */ route({
  operationId: 'redeliverEvent', method: 'POST', path: '/events/{eventId}/redeliver', handler: 'functions/api/webhooks/redeliverEvent.ts', auth: 'key', starts: ['webhookDelivery'],
  permission: 'webhook.manage', kyb: false, feature: 'webhooks', summary: 'Send the event again now, with the same webhook-id.', request: { params: EventParams }, responses: { 202: { description: acceptedText, schema: RedeliveryAccepted } }, errors: ['forbidden', 'not_found', 'conflict'],
});
export const getNotificationPreferences = /* @__PURE__ */ route({
  operationId: 'getNotificationPreferences', method: 'GET', path: '/notifications/preferences', handler: 'functions/api/notifications/getPreferences.ts', auth: 'key',
  kyb: false, feature: 'notifications', summary: "The calling member's e-mail preferences.", responses: { 200: { description: okText, schema: NotificationPreferences } }, errors: ['member_required'],
});
export const putNotificationPreferences = /* @__PURE__ */ route({
  operationId: 'putNotificationPreferences', method: 'PUT', path: '/notifications/preferences', handler: 'functions/api/notifications/putPreferences.ts', auth: 'key', deletes: true,
  kyb: false, feature: 'notifications', summary: 'Choose which events are e-mailed.', request: { body: PutNotificationPreferencesBody }, responses: { 200: { description: okText, schema: NotificationPreferences } }, errors: ['validation', 'member_required'],
});
export const sendEmailVerification = /* @__PURE__ */ route({
  operationId: 'sendEmailVerification', method: 'POST', path: '/notifications/verify/send', handler: 'functions/api/notifications/sendVerification.ts', auth: 'key', deletes: true,
  kyb: false, feature: 'notifications', sendsMail: true, summary: "E-mail a verification link to the caller's address.", responses: { 202: { description: acceptedText, schema: VerificationSent } }, errors: ['member_required', 'no_member_email'],
});
/** The pages the e-mailed links open: open routes whose token is the credential, answering a page for a person (docs/decisions/094). */
const linkPage = (description: string) => ({ 200: { description, html: true as const }, 410: { description: 'The link is unknown, used, replaced or expired: a page saying so.', html: true as const } });
export const verifyEmail = /* @__PURE__ */ route({
  operationId: 'verifyEmail', method: 'GET', path: '/notifications/verify', handler: 'functions/api/notifications/verifyEmail.ts', auth: 'open', table: 'write', sealsSecrets: true,
  kyb: false, feature: 'notifications', summary: "The verification link: verifies the member's address and shows a page saying so (or why not).", request: { query: NotificationLinkQuery },
  responses: /* @__PURE__ */ linkPage('The address is verified: a page saying so.'), errors: ['validation'],
});
export const verifyEmailByForm = /* @__PURE__ */ route({
  operationId: 'verifyEmailByForm', method: 'POST', path: '/notifications/verify', handler: 'functions/api/notifications/verifyEmailByForm.ts', auth: 'open', sealsSecrets: true,
  kyb: false, feature: 'notifications', summary: 'The same verification, posted as a form.', request: { query: NotificationLinkQuery, form: VerifyEmailForm },
  responses: /* @__PURE__ */ linkPage('The address is verified: a page saying so.'), errors: ['validation'],
});
export const unsubscribePage = /* @__PURE__ */ route({
  operationId: 'unsubscribePage', method: 'GET', path: '/notifications/unsubscribe', handler: 'functions/api/notifications/unsubscribePage.ts', auth: 'open', table: 'read', opensSecrets: true,
  kyb: false, feature: 'notifications', summary: 'The unsubscribe link: a page with one button; a GET changes nothing (link scanners follow links).', request: { query: NotificationLinkQuery },
  responses: /* @__PURE__ */ linkPage('A page asking to confirm.'), errors: ['validation'],
});
export const unsubscribe = /* @__PURE__ */ route({
  operationId: 'unsubscribe', method: 'POST', path: '/notifications/unsubscribe', handler: 'functions/api/notifications/unsubscribe.ts', auth: 'open', opensSecrets: true, deletes: true,
  kyb: false, feature: 'notifications', summary: "One-click unsubscribe (RFC 8058): removes the e-mail's event type from the member's preferences.", request: { query: NotificationLinkQuery, form: UnsubscribeForm },
  responses: /* @__PURE__ */ linkPage('Unsubscribed: a page saying so.'), errors: ['validation'],
});

// ---- Statements --------------------------------------------------------------------------

export const getStatement = /* @__PURE__ */ route({
  operationId: 'getStatement', method: 'GET', path: '/statements', handler: 'functions/api/statements/getStatement.ts', auth: 'key',
  kyb: false, feature: 'statements', summary: 'Realized fees and volume for a period.', request: { query: StatementQuery }, responses: {
    200: {
      description: okText, schema: Statement,
      alsoAs: { mediaType: 'text/csv', description: statementCsvDescription },
    },
  },
  errors: ['invalid_period', 'invalid_query', 'validation'],
});

// ---- Sandbox tools -----------------------------------------------------------------------

export const simulateOnRampPayment = /* @__PURE__ */ route({
  operationId: 'simulateOnRampPayment', method: 'POST', path: '/treasury/onramp/{onRampId}/simulate-payment', handler: 'functions/api/sandbox/simulateOnRampPayment.ts', auth: 'key', sandboxOnly: true,
  permission: 'treasury.move', kyb: false, feature: 'sandbox', summary: 'Pay an open deposit as a simulated payer.', request: { params: SimulateOnRampPaymentParams }, responses: { 202: { description: acceptedText, schema: SimulatedOnRampPayment } }, errors: ['forbidden', 'not_found', 'not_simulatable'],
});
export const simulateWire = /* @__PURE__ */ route({
  operationId: 'simulateWire', method: 'POST', path: '/treasury/onramps/simulate-wire', handler: 'functions/api/sandbox/simulateWire.ts', starts: ['onRamp'], auth: 'key', sandboxOnly: true, needs: ['onRamp'], deletes: true,
  permission: 'treasury.move', kyb: true, feature: 'sandbox', summary: "Post an incoming wire quoting the organization's reference.", request: { body: SimulateWireBody }, responses: { 202: { description: acceptedText, schema: SimulatedWire } },
  errors: ['unknown_currency', 'validation', 'forbidden', 'kyb_required'],
});
export const getSandboxPrefill = /* @__PURE__ */ route({
  operationId: 'getSandboxPrefill', method: 'GET', path: '/treasury/sandbox-prefill', handler: 'functions/api/sandbox/getSandboxPrefill.ts', auth: 'key', sandboxOnly: true, needs: ['payout'],
  kyb: false, feature: 'sandbox', summary: 'Inputs that the sandbox providers settle.', responses: { 200: { description: okText, schema: SandboxPrefill } },
});
export const topUpEurc = /* @__PURE__ */ route({
  operationId: 'topUpEurc', method: 'POST', path: '/wallets/{walletId}/topup-eurc', handler: 'functions/api/sandbox/topUpEurc.ts', auth: 'key', sandboxOnly: true, needs: ['custody'],
  permission: 'treasury.move', kyb: true, feature: 'sandbox', summary: 'Credit a simulated EURC balance.', request: { params: WalletParams, body: TopUpEurcBody }, responses: { 200: { description: okText, schema: EurcTopUp } },
  errors: ['validation', 'forbidden', 'kyb_required', 'not_found', 'conflict'],
});

export const routes: RouteDefinition[] = [
  getHealth, getCapabilities, getMe, getOpenApi, getReference, getReferenceScript,
  createQuote, createTransaction, listTransactions, getTransaction,
  createBatch, listBatches, getBatch,
  getBalance, listWallets, getWallet, getWalletBalances, listIssuerAccounts, listIssuers,
  createWalletTransfer, mintAtIssuer, createWireTransfer,
  getDepositInstructions, getOnRampQuote, createOnRamp, listOnRamps, getOnRamp, getPixOnRampQuote, createPixOnRamp, getCryptoDeposit,
  getWithdrawalQuote, createWithdrawal, listWithdrawals, getWithdrawal,
  createBeneficiary, listBeneficiaries, getOffRampQuote, createOffRamp, listOffRamps, getOffRamp,
  listRecipients, createRecipient, updateRecipient, deleteRecipient,
  listMembers, inviteMember, resendInvitation, invitationPage, acceptInvitation, updateMember, removeMember, rotateMemberKey, rotateOrganizationKey,
  getWebhookEndpoint, putWebhookEndpoint, deleteWebhookEndpoint, listEvents, getEvent, redeliverEvent,
  getNotificationPreferences, putNotificationPreferences, sendEmailVerification, verifyEmail, verifyEmailByForm, unsubscribePage, unsubscribe,
  getStatement,
  simulateOnRampPayment, simulateWire, getSandboxPrefill, topUpEurc,
];

export function findRoute(key: string): RouteDefinition | undefined {
  return routes.find((definition) => routeKey(definition) === key);
}
