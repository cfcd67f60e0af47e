import { randomBytes } from 'node:crypto';
import { startLocalService, type LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import type { KybStatus } from '#store/organizations.ts';
import { forgetCursorSecret } from '#store/cursors.ts';

/**
 * The whole local service (HTTP adapter, workflow runner, stream poller, event bus) on a random
 * free port, against the run's DynamoDB Local, in a table of its own.
 */
export async function startTestService(): Promise<LocalService> {
  forgetCursorSecret();
  return startLocalService({
    port: 0,
    dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
    tableName: `e2e-${randomBytes(6).toString('hex')}`,
    waitSeconds: 0,
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

/** fetch against the service, returning status, headers and the parsed JSON body. */
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
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Left as text: the assertion will show it.
  }
  return { status: response.status, headers: response.headers, body: parsed };
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
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { status, body } = await call(service, 'GET', path, { apiKey });
    if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${JSON.stringify(body)}`);
    if (ended(body)) return body;
    if (Date.now() > deadline) throw new Error(`${path} still running after ${timeoutMs} ms: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
