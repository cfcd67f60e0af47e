import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routes, routeKey, type RouteDefinition } from '#contract/routes.ts';
import { logger } from '#platform/logger.ts';
import { lambdaMaxResponseBytes } from '#platform/response.ts';
import { unmatchedHandler } from '../aws/handlers.ts';
import { invokeAs, localGrants } from './grants/enforcement.ts';

/**
 * API Gateway on this machine: node:http turning each request into the same API Gateway v2
 * proxy event the HTTP API sends, routed by the same route table to the same handler modules.
 * It holds the limits AWS puts between a client and a function (docs/decisions/103), and answers
 * as HTTP API does when one is crossed: the body's 10 MB, Lambda's 6 MB invocation payload each
 * way (the event as JSON, so the body base64-encoded and the headers with it; the result as JSON),
 * and HTTP API's 30 s integration timeout.
 */
type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2 | string | undefined>;

/** A row of the route table and the handler it runs. */
interface MountedRoute {
  definition: RouteDefinition;
  handler: LambdaHandler;
}

/** A route with path parameters: matched by its pattern, which names them. */
interface ParameterizedRoute extends MountedRoute {
  regex: RegExp;
  names: string[];
  /** Literal segments rank first, as API Gateway prefers the most specific route. */
  specificity: number;
}

const projectRoot = path.resolve(import.meta.dirname, '../..');
/** Without installed grants (a test of the adapter alone): the API functions' usual timeout. */
const defaultTimeoutMs = 10_000;

/** HTTP API's payload quota: a larger request body is refused before any integration runs. */
export const httpApiMaxBodyBytes = 10 * 1024 * 1024;
/** Lambda's synchronous invocation request: the event as JSON ("Request must be smaller than 6291456 bytes"). */
export const lambdaMaxRequestBytes = 6 * 1024 * 1024;
/** HTTP API's integration timeout: it answers 503 then, whatever the function's own timeout. */
export const httpApiIntegrationTimeoutMs = 30_000;
export { lambdaMaxResponseBytes };

/** What HTTP API answers itself, in its own body (never the contract's), when a limit is crossed. */
const httpApiAnswers = {
  bodyTooLarge: { statusCode: 413, headers: { 'content-type': 'text/plain; charset=utf-8' }, body: `HTTP content length exceeded ${httpApiMaxBodyBytes} bytes.` },
  requestTooLong: { statusCode: 413, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Request Too Long' }) },
  internalServerError: { statusCode: 500, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Internal Server Error' }) },
  serviceUnavailable: { statusCode: 503, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ message: 'Service Unavailable' }) },
} satisfies Record<string, APIGatewayProxyStructuredResultV2>;

/** Bytes of a value as Lambda carries it: its JSON. */
export function invocationPayloadBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? 'null');
}

/**
 * More than an event's JSON can hold besides its base64 body: node refuses a request line and headers
 * past 16 KB, the event carries the path and query a few times over (raw, in requestContext, parsed),
 * and JSON spends at most 6 bytes on a character (`\u001f`); the rest is a few fixed fields.
 */
const eventBytesBesidesBody = 1024 * 1024;

/**
 * Whether an event surely fits Lambda's request limit without measuring it: its base64 body plus
 * what the rest can hold. Only a body of megabytes is measured exactly (a GET is not serialized just
 * to be weighed).
 */
function eventSurelyFits(bodyBytes: number): boolean {
  return Math.ceil(bodyBytes / 3) * 4 + eventBytesBesidesBody < lambdaMaxRequestBytes;
}

/** The same for a handler's result: a string body of n characters is at most 6n bytes of JSON; the headers are measured. */
function resultSurelyFits(result: Awaited<ReturnType<LambdaHandler>>): boolean {
  if (typeof result !== 'object' || result === null) return false;
  const bodyLength = typeof result.body === 'string' ? result.body.length : 0;
  return 6 * bodyLength + invocationPayloadBytes(result.headers ?? {}) + invocationPayloadBytes(result.cookies ?? []) + 1024 < lambdaMaxResponseBytes;
}

async function loadHandler(modulePath: string): Promise<LambdaHandler> {
  const module = (await import(pathToFileURL(path.join(projectRoot, modulePath)).href)) as { handler?: LambdaHandler };
  if (typeof module.handler !== 'function') throw new Error(`${modulePath} does not export a handler`);
  return module.handler;
}

/**
 * The route table as API Gateway matches it: a path of literal segments by a lookup (it outranks any
 * route with a parameter, which has fewer literal segments), the others in order of specificity.
 */
interface RouteTable {
  literal: Map<string, MountedRoute>;
  parameterized: ParameterizedRoute[];
  fallback: LambdaHandler;
}

export async function compileRoutes(table: RouteDefinition[] = routes): Promise<RouteTable> {
  const handlers = new Map<string, LambdaHandler>();
  for (const modulePath of new Set([...table.map((definition) => definition.handler), unmatchedHandler])) {
    handlers.set(modulePath, await loadHandler(modulePath));
  }
  const literal = new Map<string, MountedRoute>();
  const parameterized: ParameterizedRoute[] = [];
  for (const definition of table) {
    const segments = definition.path.split('/').filter(Boolean);
    const mounted = { definition, handler: handlers.get(definition.handler)! };
    const params = segments.map((segment) => /^\{(.+)\}$/.exec(segment)?.[1]);
    if (params.every((name) => name === undefined)) {
      const key = routeKey(definition);
      if (!literal.has(key)) literal.set(key, mounted);
      continue;
    }
    const names = params.filter((name) => name !== undefined);
    const pattern = segments.map((segment, index) => (params[index] === undefined ? segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : '([^/]+)')).join('/');
    parameterized.push({
      ...mounted,
      regex: new RegExp(`^/${pattern}$`),
      names,
      specificity: segments.filter((segment) => !segment.startsWith('{')).length * 100 - names.length,
    });
  }
  parameterized.sort((a, b) => b.specificity - a.specificity);
  return { literal, parameterized, fallback: handlers.get(unmatchedHandler)! };
}

/** The route a request takes and its path parameters (as sent where one is not valid percent-encoding), or none. */
function matchRoute(table: RouteTable, method: string, pathname: string): { route: MountedRoute; pathParameters?: Record<string, string> } | undefined {
  const route = table.literal.get(routeKey({ method, path: pathname }));
  if (route) return { route };
  for (const candidate of table.parameterized) {
    if (candidate.definition.method !== method) continue;
    const values = candidate.regex.exec(pathname)?.slice(1);
    if (!values) continue;
    try {
      return { route: candidate, pathParameters: Object.fromEntries(candidate.names.map((name, index) => [name, decodeURIComponent(values[index]!)])) };
    } catch {
      return { route: candidate, pathParameters: Object.fromEntries(candidate.names.map((name, index) => [name, values[index]!])) };
    }
  }
  return undefined;
}

const noBody = Buffer.alloc(0);

/**
 * The whole body, as HTTP API passes it on (the service's own 1 MiB bound is the handler's to answer,
 * in the contract's body); undefined past HTTP API's quota, which it refuses itself.
 */
function readBody(request: IncomingMessage): Promise<Buffer | undefined> | Buffer {
  // Neither a length nor chunked framing: HTTP/1.1 says there is no body, and node has no data to give.
  if (request.headers['content-length'] === undefined && request.headers['transfer-encoding'] === undefined) return noBody;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Past the quota the rest is read and dropped, so that the answer can be sent.
      if (size <= httpApiMaxBodyBytes) chunks.push(chunk);
    });
    request.on('end', () => resolve(size > httpApiMaxBodyBytes ? undefined : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * Lambda between HTTP API and the handler: an event past the request limit is refused before the
 * function runs; a result past the response limit, or none within HTTP API's integration timeout,
 * is answered by HTTP API itself (the function may still be running, as a Lambda would be).
 */
/**
 * One invocation as HTTP API makes it: the request limit, the handler run as its deployed function
 * (`entry`: its grants and timeout, lib/local/grants), the integration timeout and the response limit.
 */
async function invoke(handler: LambdaHandler, entry: string | undefined, event: APIGatewayProxyEventV2, context: Context, integrationTimeoutMs: number, bodyBytes: number): Promise<APIGatewayProxyStructuredResultV2 | string | undefined> {
  const requestBytes = eventSurelyFits(bodyBytes) ? 0 : invocationPayloadBytes(event);
  if (requestBytes > lambdaMaxRequestBytes) {
    logger.warn('local http adapter: event past Lambda\'s request limit', { routeKey: event.routeKey, bytes: requestBytes, limit: lambdaMaxRequestBytes });
    return httpApiAnswers.requestTooLong;
  }
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timedOut'>((resolve) => (timer = setTimeout(() => resolve('timedOut'), integrationTimeoutMs)));
  const invocation = Promise.resolve().then(() => (entry ? invokeAs(entry, () => handler(event, context)) : handler(event, context)));
  let result: Awaited<ReturnType<LambdaHandler>> | 'timedOut';
  try {
    result = await Promise.race([invocation, timedOut]);
  } catch (error) {
    // A handler that throws past its own error mapping, or runs past its deployed timeout: Lambda
    // reports a function error, HTTP API answers 500.
    logger.error('local http adapter: handler threw', { routeKey: event.routeKey, error: error as Error });
    return httpApiAnswers.internalServerError;
  } finally {
    clearTimeout(timer);
  }
  if (result === 'timedOut') {
    invocation.catch((error: unknown) => logger.error('local http adapter: handler threw after the integration timeout', { routeKey: event.routeKey, error: error as Error }));
    logger.warn('local http adapter: no answer within HTTP API\'s integration timeout', { routeKey: event.routeKey, timeoutMs: integrationTimeoutMs });
    return httpApiAnswers.serviceUnavailable;
  }
  const responseBytes = resultSurelyFits(result) ? 0 : invocationPayloadBytes(result);
  if (responseBytes > lambdaMaxResponseBytes) {
    logger.error('local http adapter: result past Lambda\'s response limit', { routeKey: event.routeKey, bytes: responseBytes, limit: lambdaMaxResponseBytes });
    return httpApiAnswers.internalServerError;
  }
  return result;
}

function toEvent(request: IncomingMessage, url: URL, body: Buffer, key: string, pathParameters?: Record<string, string>): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) query[name] = name in query ? `${query[name]},${value}` : value;
  const now = new Date();
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: key,
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(pathParameters ? { pathParameters } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? '127.0.0.1',
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId,
      routeKey: key,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    // API Gateway base64-encodes bodies it does not treat as text; handlers accept both forms.
    ...(body.length ? { body: body.toString('base64'), isBase64Encoded: true } : { isBase64Encoded: false }),
  };
}

/** The context Lambda hands the function, with the deployed function's timeout and memory when grants are installed. */
function lambdaContext(entry: string, requestId: string): Context {
  const deployed = localGrants()?.deployed(entry);
  const deadline = Date.now() + (deployed ? deployed.timeoutSeconds * 1000 : defaultTimeoutMs);
  const functionName = deployed?.arn.split(':').at(-1) ?? entry;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: deployed?.arn ?? `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: String(deployed?.memoryMb ?? 512),
    awsRequestId: requestId,
    logGroupName: `/local/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export interface HttpServerOptions {
  port: number;
  host?: string;
  /** The route table to serve: the contract's unless a test mounts its own. */
  routes?: RouteDefinition[];
  /** HTTP API's integration timeout unless a test needs it shorter. */
  integrationTimeoutMs?: number;
}

export async function startHttpServer(options: HttpServerOptions): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const table = await compileRoutes(options.routes);
  const integrationTimeoutMs = options.integrationTimeoutMs ?? httpApiIntegrationTimeoutMs;

  const server = http.createServer(async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const body = await readBody(request);
      const method = (request.method ?? 'GET').toUpperCase();
      let result: APIGatewayProxyStructuredResultV2 | string | undefined;
      const matched = matchRoute(table, method, url.pathname);
      if (!body) {
        result = httpApiAnswers.bodyTooLarge;
      } else if (matched) {
        const { route, pathParameters } = matched;
        const event = toEvent(request, url, body, routeKey(route.definition), pathParameters);
        // A route a test mounts is no deployed function: it runs unchecked.
        const entry = options.routes ? undefined : route.definition.handler;
        result = await invoke(route.handler, entry, event, lambdaContext(entry ?? route.definition.handler, event.requestContext.requestId), integrationTimeoutMs, body.length);
      } else {
        const event = toEvent(request, url, body, '$default');
        result = await invoke(table.fallback, unmatchedHandler, event, lambdaContext(unmatchedHandler, event.requestContext.requestId), integrationTimeoutMs, body.length);
      }
      const structured = typeof result === 'object' && result ? result : { statusCode: 200, body: result ?? '' };
      response.writeHead(structured.statusCode ?? 200, structured.headers as Record<string, string>);
      // A result in bytes (isBase64Encoded) is decoded, as HTTP API does.
      response.end(structured.isBase64Encoded ? Buffer.from(structured.body ?? '', 'base64') : (structured.body ?? ''));
    } catch (error) {
      // The adapter's own failure (a handler's is answered in invoke): answer as HTTP API does.
      logger.error('local http adapter failed', { error: error as Error });
      if (!response.headersSent) response.writeHead(500, httpApiAnswers.internalServerError.headers);
      response.end(httpApiAnswers.internalServerError.body);
    }
  });
  // Requests node cannot parse (a request line or headers past its 16 KB limit, malformed framing)
  // never reach a handler: answer them in the contract's error body too, not with a bare status.
  // (In AWS, API Gateway answers these itself, before any Lambda.)
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable) return socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const body = JSON.stringify({
      error: 'bad_request',
      message: tooLarge ? 'The request line or headers are too large (at most 16 KB).' : 'The request could not be parsed as HTTP.',
    });
    socket.end(
      `HTTP/1.1 ${tooLarge ? '431 Request Header Fields Too Large' : '400 Bad Request'}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
  });
  server.headersTimeout = 15_000;
  server.requestTimeout = 30_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    server,
    url: `http://${options.host ?? '127.0.0.1'}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
