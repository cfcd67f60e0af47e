import { randomBytes } from 'node:crypto';
import { startLocalService, type LocalService, type LocalServiceOptions } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import type { KybStatus } from '#store/organizations.ts';
import { servedDocument, type OpenApiDocument, type ServedDocument } from './servedDocument.ts';
import { until } from './eventually.ts';
import { resending } from './resend.ts';

/**
 * The whole local service (HTTP adapter, workflow runner, stream poller, event bus) on a random
 * free port, against the run's DynamoDB Local, in a table of its own; `simulated` unless the test
 * is about another environment.
 */
export async function startTestService(environment?: 'simulated' | 'sandbox' | 'production', options: Pick<LocalServiceOptions, 'grants'> = {}): Promise<LocalService> {
  return startLocalService({
    port: 0,
    dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
    tableName: `e2e-${randomBytes(6).toString('hex')}`,
    waitSeconds: 0,
    ...(environment ? { environment } : {}),
    ...options,
  });
}

export interface TestOrganization {
  organizationId: string;
  apiKey: string;
  homeWalletId: string;
}

export async function createTestOrganization(service: LocalService, kybStatus: KybStatus = 'approved', name = 'Test Org'): Promise<TestOrganization> {
  const created = await onboardOrganization({ name, kybStatus });
  await service.runner.waitFor(created.walletExecution);
  return { organizationId: created.organization.id, apiKey: created.apiKey.apiKey, homeWalletId: created.organization.homeWalletId };
}

const documents = new Map<string, Promise<ServedDocument>>();

/** The OpenAPI document the service at this address serves, read once. */
function documentOf(service: LocalService): Promise<ServedDocument> {
  let document = documents.get(service.url);
  if (!document) {
    document = fetch(`${service.url}/openapi.json`)
      .then(async (response) => {
        if (response.status !== 200) throw new Error(`GET /openapi.json answered ${response.status}`);
        return servedDocument((await response.json()) as OpenApiDocument);
      })
      .catch((error: unknown) => {
        documents.delete(service.url);
        throw error;
      });
    documents.set(service.url, document);
  }
  return document;
}

/**
 * fetch against the service, returning status, headers and the parsed JSON body (a body in another
 * media type, as text). Every answer is
 * held against the OpenAPI document the service serves; one that does not fit it fails the test.
 */
export async function call(
  service: LocalService,
  method: string,
  path: string,
  options: { apiKey?: string; body?: unknown; rawBody?: string | Buffer; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  let body: string | Buffer | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${service.url}${path}`, { method, headers, body });
  const text = await response.text();
  // Anything but JSON (a statement as CSV) is read, and checked against the document, as text.
  const mediaType = (response.headers.get('content-type') ?? 'application/json').split(';')[0]!.trim().toLowerCase();
  let parsed: unknown = text;
  if (mediaType === 'application/json') {
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // Left as text: the assertion will show it.
    }
  }
  const mismatch = (await documentOf(service)).mismatch(method, path, response.status, parsed, mediaType);
  if (mismatch) throw new Error(`The answer does not fit the served OpenAPI document: ${mismatch}\nbody: ${text.slice(0, 1500)}`);
  return { status: response.status, headers: response.headers, body: parsed };
}

/**
 * `call` as the contract tells an integrator to send: a 503 (the request may or may not have taken
 * effect) is sent again, the same request, after its Retry-After and a jittered pause (test/support/resend.ts), until
 * another answer comes, `attempts` are spent (the last answer is returned) or `timeoutMs` passes
 * (thrown). For a test's load that one process on a busy machine may not carry within a function's
 * deadline (the local twin keeps Lambda's timeouts; in AWS each request has a function of its own):
 * what the test asserts is what the resends converge to. Resending at once would keep a loaded
 * machine loaded: a 503'd invocation is abandoned, so every resend redoes the whole work. A keyed
 * request is safe to resend; an unkeyed one only where a second copy changes nothing the test reads.
 */
export function callResending(
  service: LocalService,
  method: string,
  path: string,
  options: Parameters<typeof call>[3] = {},
  { timeoutMs = 60_000, attempts = Infinity }: { timeoutMs?: number; attempts?: number } = {},
): Promise<Awaited<ReturnType<typeof call>>> {
  return resending(() => call(service, method, path, options), { timeoutMs, attempts, what: `${method} ${path}` });
}

/**
 * Polls a status endpoint until the operation has ended (by default `running: false`: ended or
 * needs a person, as the contract tells integrators to poll); answers that body.
 */
export async function untilSettled(
  service: LocalService,
  apiKey: string,
  path: string,
  timeoutMs = 20_000,
  ended: (body: Record<string, any>) => boolean = (body) => !body.running,
): Promise<any> {
  return until(
    async () => {
      const { status, body } = await call(service, 'GET', path, { apiKey });
      if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${JSON.stringify(body)}`);
      return body as Record<string, any>;
    },
    ended,
    { what: `${path} to end` , timeoutMs },
  );
}
