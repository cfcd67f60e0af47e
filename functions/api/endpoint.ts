import middy, { type MiddlewareObj, type Request } from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod/mini';
import { parseApiKey } from '#domain/apiKeys.ts';
import { roleHasPermission } from '#domain/permissions.ts';
import { bucketOf, takesNoBody, type RouteDefinition, type RouteRequest } from '#contract/routes.ts';
import { authorizeAndCharge, type Caller, type Gate, type Grant } from '#store/access.ts';
import type { OrganizationItem } from '#store/organizations.ts';
import { countRequestCalls } from '#store/client.ts';
import { config } from '#platform/config.ts';
import { requireEdgeOrigin } from '#platform/edgeOrigin.ts';
import { ApiError, isDependencyUnavailable } from '#platform/errors.ts';
import { invocationSignal, withInvocationSignal } from '#platform/invocation.ts';
import { logger } from '#platform/logger.ts';
import { ProviderNotConfigured } from '#platform/providerErrors.ts';
import { requireProvider } from '#platform/providerPorts.ts';
import { requireSandbox } from '#platform/sandbox.ts';
import type { ApiResponse } from '#platform/response.ts';
import { isFormPost, parseBody, parseForm, parseNoBody, parseParams, parseQuery } from '#platform/request.ts';

/**
 * Every API handler is `endpoint(route, fn)`: a plain async function wrapped by middy in a
 * fixed list of concerns, in this order:
 *   0. logging    Powertools adds the Lambda context (cold start, request id) to every log line
 *   1. lifecycle  request id, structured log line, error → contract body, headers on every answer
 *   2. edge       on sandbox and production, only what came through CloudFront and its WAF (the
 *                 secret origin header, functions/platform/edgeOrigin.ts); nothing else is read before
 *   3. access     API key → caller, its permission and KYB gate, then its rate bucket (one round trip of latency)
 *   4. input      body (content type, size, JSON) and zod validation of body, query, path; then
 *                 what the row needs: a sandbox tool refuses production, provider ports must be wired
 * The route row (functions/contract/routes.ts) says which of them apply and with what.
 */
type Infer<T> = T extends z.ZodMiniType ? z.infer<T> : undefined;

/**
 * The JSON body, or the form of a row that takes one. A row that takes either (`body` and `form`)
 * says which came in `bodyAs`, and narrowing on it types the body.
 */
type Submitted<R extends RouteRequest> = R['body'] extends z.ZodMiniType
  ? R['form'] extends z.ZodMiniType
    ? { bodyAs: 'json'; body: Infer<R['body']> } | { bodyAs: 'form'; body: Infer<R['form']> }
    : { bodyAs: 'json'; body: Infer<R['body']> }
  : { bodyAs: 'form' | undefined; body: Infer<R['form']> };

export type ApiRequest<R extends RouteRequest> = {
  requestId: string;
  event: APIGatewayProxyEventV2;
  /** Set on keyed routes. */
  caller: R extends unknown ? Caller : never;
  /** The caller's organization as read while authenticating (no second read needed). */
  organization: OrganizationItem;
  query: Infer<R['query']>;
  params: Infer<R['params']>;
} & Submitted<R>;

export type OpenApiRequest<R extends RouteRequest> = Omit<ApiRequest<R>, 'caller' | 'organization'>;

interface RequestState {
  requestId: string;
  startedAt: number;
  dynamoCalls: { calls: number };
  headers: Record<string, string>;
  caller?: Caller;
  organization?: OrganizationItem;
  /** The organization of a caller refused before its charge (no caller is built): for the log line. */
  refusedOrganizationId?: string;
  body?: unknown;
  bodyAs?: 'json' | 'form';
  query?: unknown;
  params?: unknown;
}

type ApiEvent = APIGatewayProxyEventV2;
type ApiResult = APIGatewayProxyStructuredResultV2;
type ApiMiddleware = MiddlewareObj<ApiEvent, ApiResult, Error, Context>;

const states = new WeakMap<object, RequestState>();

function stateOf(request: Request<ApiEvent, ApiResult, Error, Context>): RequestState {
  const state = states.get(request.event);
  if (!state) throw new Error('request state missing: lifecycle middleware must run first');
  return state;
}

/** What a request answers when a dependency, or the clock, ran out: 503, safe to retry with the same key. */
function unavailableReply(): ApiResponse {
  const busy = new ApiError(
    'unavailable',
    'A dependency did not answer in time; the request may or may not have taken effect. Retry with backoff: a retry with the same idempotency key is safe.',
  );
  return { status: busy.status, body: busy.body(), headers: { 'retry-after': '1' } };
}

/** The 503 is answered this long before Lambda's own deadline: time to reply before Lambda stops the function. */
const deadlineMarginMs = 500;

function lifecycle(definition: RouteDefinition): ApiMiddleware {
  const finish = (request: Request<ApiEvent, ApiResult, Error, Context>, reply: ApiResponse) => {
    const state = states.get(request.event);
    const requestId = state?.requestId ?? randomUUID();
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'x-request-id': requestId,
      ...state?.headers,
      ...reply.headers,
    };
    request.response = {
      statusCode: reply.status,
      headers,
      ...(reply.bytes
        ? { body: Buffer.from(reply.bytes).toString('base64'), isBase64Encoded: true }
        : { body: reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body)) }),
    };
    logger.info('request', {
      route: `${definition.method} ${definition.path}`,
      status: reply.status,
      durationMs: state ? Date.now() - state.startedAt : undefined,
      dynamoCalls: state?.dynamoCalls.calls,
      organizationId: state?.caller?.organizationId ?? state?.refusedOrganizationId,
      requestId,
    });
  };
  return {
    before: async (request) => {
      const requestId = request.event.requestContext?.requestId || randomUUID();
      states.set(request.event, { requestId, startedAt: Date.now(), dynamoCalls: countRequestCalls(), headers: {} });
    },
    after: async (request) => {
      finish(request, request.response as unknown as ApiResponse);
    },
    onError: async (request) => {
      const error = request.error;
      if (error instanceof ApiError) {
        finish(request, { status: error.status, body: error.body(), headers: error.headers });
        return;
      }
      // A provider port with no adapter on this environment: the feature is not wired here.
      if (error instanceof ProviderNotConfigured) {
        const notWired = new ApiError('not_implemented', error.message, { feature: definition.feature });
        finish(request, { status: notWired.status, body: notWired.body() });
        return;
      }
      // The invocation's time ran out and its 503 has been answered ("request past its deadline", logged
      // once): what its abandoned calls throw now says nothing more, and the log says what the client got.
      if (invocationSignal()?.aborted) {
        logger.debug('abandoned with its invocation', { error, route: `${definition.method} ${definition.path}` });
        finish(request, unavailableReply());
        return;
      }
      if (isDependencyUnavailable(error)) {
        logger.warn('dependency unavailable', { error, route: `${definition.method} ${definition.path}` });
        finish(request, unavailableReply());
        return;
      }
      logger.error('unhandled error', { error, route: `${definition.method} ${definition.path}` });
      finish(request, { status: 500, body: { error: 'internal', message: 'Something went wrong on our side; it has been logged.' } });
    },
  };
}

const edge: ApiMiddleware = {
  before: async (request) => {
    await requireEdgeOrigin(request.event.headers);
  },
};

function access(definition: RouteDefinition): ApiMiddleware {
  // What the row asks of the caller, decided before its bucket is charged (docs/decisions/107).
  const gate: Gate = { admits: (grant) => roleRefusal(definition, grant) === undefined, kyb: definition.kyb };
  return {
    before: async (request) => {
      if (definition.auth === 'open') return;
      const state = stateOf(request);
      const header = request.event.headers?.authorization ?? '';
      const match = /^Bearer ([^\s]+)$/.exec(header.trim());
      const key = match ? parseApiKey(match[1]!, config().SERVICE_ENVIRONMENT) : undefined;
      if (!key) throw unauthorized();
      const result = await authorizeAndCharge(key, bucketOf(definition), gate);
      if (result.outcome === 'unauthorized') throw unauthorized();
      Object.assign(state.headers, result.rate);
      if (result.outcome === 'refused') {
        state.refusedOrganizationId = result.organizationId;
        if (result.refusal === 'role') throw roleRefusal(definition, result.grant)!;
        throw new ApiError('kyb_required', 'The organization must pass KYB verification before it can do this.');
      }
      if (result.outcome === 'rate_limited') {
        throw new ApiError(
          'rate_limited',
          `Too many requests; retry after ${result.retryAfterSeconds} seconds with the same idempotency key.`,
          { retryAfterSeconds: result.retryAfterSeconds },
          { 'retry-after': String(result.retryAfterSeconds) },
        );
      }
      state.caller = result.caller;
      state.organization = result.organization;
    },
  };
}

/** Why the row refuses a key with this grant (403 `forbidden`), or undefined when it admits it. */
function roleRefusal(definition: RouteDefinition, grant: Grant): ApiError | undefined {
  if (definition.permission && !roleHasPermission(grant.role, definition.permission)) {
    return new ApiError('forbidden', `The ${grant.role} role does not have the ${definition.permission} permission.`);
  }
  if (definition.ownerOnly && (grant.role !== 'owner' || grant.memberId)) {
    return new ApiError('forbidden', 'Only the organization key (role owner) may do this.');
  }
  return undefined;
}

function unauthorized(): ApiError {
  return new ApiError('unauthorized', 'Send a valid API key as Authorization: Bearer <key>.');
}

function input(definition: RouteDefinition): ApiMiddleware {
  return {
    before: async (request) => {
      const state = stateOf(request);
      const { body, form, query, params } = definition.request ?? {};
      if (params) state.params = parseParams(params, request.event);
      // Only a row that documents `invalid_query` refuses parameters it does not know; the others ignore them.
      if (query) state.query = parseQuery(query, request.event, { refuseUnknown: definition.errors?.includes('invalid_query') ?? false });
      // A row that takes either reads a form only when one is sent: anything else is read as the JSON API's body.
      state.bodyAs = body && !(form && isFormPost(request.event)) ? 'json' : form ? 'form' : undefined;
      if (state.bodyAs === 'json') state.body = parseBody(body!, request.event);
      else if (state.bodyAs === 'form') state.body = parseForm(form!, request.event);
      else if (takesNoBody(definition)) parseNoBody(request.event);
      // What the row says the route needs, checked once here rather than at the top of each handler.
      if (definition.sandboxOnly) requireSandbox();
      for (const need of definition.needs ?? []) requireProvider(need);
    },
  };
}

export function endpoint<R extends RouteRequest>(
  definition: RouteDefinition<R>,
  fn: (request: ApiRequest<R>) => Promise<ApiResponse>,
): (event: ApiEvent, context: Context) => Promise<ApiResult> {
  // No middy timeoutEarly: it would cover the handler alone, and the invocation's own deadline below
  // answers first; a second timer a little later would only run on requests already answered.
  const chain = middy<ApiEvent, ApiResult, Error, Context>()
    // logEvent stays off whatever POWERTOOLS_LOGGER_LOG_EVENT says: the event carries the API key.
    .use(injectLambdaContext(logger, { resetKeys: true, logEvent: false }))
    .use(lifecycle(definition))
    .use(edge)
    .use(access(definition))
    .use(input(definition))
    .handler(async (event) => {
      const state = states.get(event)!;
      const reply = await fn({
        requestId: state.requestId,
        event,
        caller: state.caller as never,
        organization: state.organization as OrganizationItem,
        body: state.body,
        bodyAs: state.bodyAs,
        query: state.query as Infer<R['query']>,
        params: state.params as Infer<R['params']>,
      } as ApiRequest<R>);
      // middy treats an undefined result as "not answered"; a handler must always answer.
      return reply as unknown as ApiResult;
    });
  // The key check and the bucket before the handler can be slow too (a contended table), so the whole
  // invocation answers its 503 before Lambda's deadline, never Lambda's own timeout (HTTP API's bare
  // 500, which a client must not retry blindly).
  return async (event, context) => {
    const remaining = context?.getRemainingTimeInMillis?.();
    if (remaining === undefined) return chain(event, context);
    let timer: NodeJS.Timeout | undefined;
    // The invocation's calls are abandoned with it when its 503 is answered. Not middy's own signal:
    // one per handler, shared by all the invocations one process runs at once (the local twin).
    const abandoned = new AbortController();
    const late = new Promise<ApiResult>((resolve) => {
      timer = setTimeout(() => {
        abandoned.abort();
        const reply = unavailableReply();
        logger.warn('request past its deadline', { route: `${definition.method} ${definition.path}` });
        resolve({
          statusCode: reply.status,
          headers: { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-request-id': states.get(event)?.requestId ?? randomUUID(), ...reply.headers },
          body: JSON.stringify(reply.body),
        });
      }, Math.max(0, remaining - deadlineMarginMs));
    });
    try {
      return await Promise.race([withInvocationSignal(abandoned.signal, () => chain(event, context)), late]);
    } finally {
      clearTimeout(timer);
    }
  };
}
