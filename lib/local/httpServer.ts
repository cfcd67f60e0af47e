import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routes, routeKey, type RouteDefinition } from '#contract/routes.ts';
import { maxBodyBytes } from '#platform/request.ts';
import { unmatchedHandler } from '../aws/handlers.ts';
import { invokeAs, localGrants } from './grants/enforcement.ts';

/**
 * API Gateway on this machine: node:http turning each request into the same API Gateway v2
 * proxy event the HTTP API sends, routed by the same route table to the same handler modules.
 */
type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2 | string | undefined>;

interface CompiledRoute {
  definition: RouteDefinition;
  regex: RegExp;
  names: string[];
  handler: LambdaHandler;
  /** Literal segments rank first, as API Gateway prefers the most specific route. */
  specificity: number;
}

const projectRoot = path.resolve(import.meta.dirname, '../..');
/** Without installed grants (a test of the adapter alone): the API functions' usual timeout. */
const defaultTimeoutMs = 10_000;

async function loadHandler(modulePath: string): Promise<LambdaHandler> {
  const module = (await import(pathToFileURL(path.join(projectRoot, modulePath)).href)) as { handler?: LambdaHandler };
  if (typeof module.handler !== 'function') throw new Error(`${modulePath} does not export a handler`);
  return module.handler;
}

export async function compileRoutes(): Promise<{ routes: CompiledRoute[]; fallback: LambdaHandler }> {
  const handlers = new Map<string, LambdaHandler>();
  for (const modulePath of new Set([...routes.map((definition) => definition.handler), unmatchedHandler])) {
    handlers.set(modulePath, await loadHandler(modulePath));
  }
  const compiled = routes.map((definition) => {
    const names: string[] = [];
    const segments = definition.path.split('/').filter(Boolean);
    const pattern = segments
      .map((segment) => {
        const param = /^\{(.+)\}$/.exec(segment);
        if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(param[1]!);
        return '([^/]+)';
      })
      .join('/');
    return {
      definition,
      regex: new RegExp(`^/${pattern}$`),
      names,
      handler: handlers.get(definition.handler)!,
      specificity: segments.filter((segment) => !segment.startsWith('{')).length * 100 - names.length,
    };
  });
  compiled.sort((a, b) => b.specificity - a.specificity);
  return { routes: compiled, fallback: handlers.get(unmatchedHandler)! };
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      // Keep one byte past the limit so the handler sees the body is too large, and stop buffering.
      if (size > maxBodyBytes) return;
      chunks.push(chunk);
      size += chunk.length;
    });
    request.on('end', () => resolve(Buffer.concat(chunks).subarray(0, maxBodyBytes + 1)));
    request.on('error', reject);
  });
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
  const deployed = localGrants()?.functionOf(entry);
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

export async function startHttpServer(options: { port: number; host?: string }): Promise<{ server: http.Server; url: string; close(): Promise<void> }> {
  const { routes: compiled, fallback } = await compileRoutes();

  const server = http.createServer(async (request: IncomingMessage, response: ServerResponse) => {
    try {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const body = await readBody(request);
      const method = (request.method ?? 'GET').toUpperCase();
      let result: APIGatewayProxyStructuredResultV2 | string | undefined;
      const match = compiled.find((candidate) => candidate.definition.method === method && candidate.regex.test(url.pathname));
      if (match) {
        const values = match.regex.exec(url.pathname)!.slice(1);
        let pathParameters: Record<string, string> | undefined;
        try {
          pathParameters = Object.fromEntries(match.names.map((name, index) => [name, decodeURIComponent(values[index]!)]));
        } catch {
          pathParameters = Object.fromEntries(match.names.map((name, index) => [name, values[index]!]));
        }
        const event = toEvent(request, url, body, routeKey(match.definition), match.names.length ? pathParameters : undefined);
        result = await invokeAs(match.definition.handler, () => match.handler(event, lambdaContext(match.definition.handler, event.requestContext.requestId)));
      } else {
        const event = toEvent(request, url, body, '$default');
        result = await invokeAs(unmatchedHandler, () => fallback(event, lambdaContext(unmatchedHandler, event.requestContext.requestId)));
      }
      const structured = typeof result === 'object' && result ? result : { statusCode: 200, body: result ?? '' };
      response.writeHead(structured.statusCode ?? 200, structured.headers as Record<string, string>);
      response.end(structured.body ?? '');
    } catch (error) {
      // A handler that throws past its own error mapping, or runs past its deployed timeout, is a
      // failed invocation: HTTP API answers those 500 with its own body, whatever the function.
      console.error('local http adapter: handler threw', error);
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ message: 'Internal Server Error' }));
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
