import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { addApiKey, revokeApiKey, setRateLimit } from '#store/organizations.ts';
import { parseApiKey, issueApiKey } from '#domain/apiKeys.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { routes, routeKey, notImplementedHandler } from '#contract/routes.ts';
import { features } from '#contract/features.ts';

let service: LocalService;
let org: TestOrganization;

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
});

afterAll(async () => {
  await service?.stop();
});

describe('discovery', () => {
  it('GET /health is open and reports the workflow engine', async () => {
    const { status, body, headers } = await call(service, 'GET', '/health');
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ok', version: expect.any(String), uptimeSeconds: expect.any(Number), checks: { workflow: 'ok' } });
    expect(headers.get('content-type')).toBe('application/json');
    expect(headers.get('x-request-id')).toBeTruthy();
  });

  it('GET /capabilities lists the environment and every feature with an honest status', async () => {
    const { status, body } = await call(service, 'GET', '/capabilities');
    expect(status).toBe(200);
    expect(body.environment).toBe('simulated');
    expect(body.version).toEqual(expect.any(String));
    expect(Array.isArray(body.corridors)).toBe(true);
    expect(body.features.map((f: { feature: string }) => f.feature).sort()).toEqual(Object.keys(features).sort());
    for (const feature of body.features) {
      expect(['live', 'partial', 'simulated', 'planned']).toContain(feature.status);
      expect(feature.reason.length).toBeGreaterThan(0);
    }
  });

  it('GET /me names the organization and the role of the key, with rate-limit headers', async () => {
    const { status, body, headers } = await call(service, 'GET', '/me', { apiKey: org.apiKey });
    expect(status).toBe(200);
    expect(body).toEqual({ id: org.organizationId, name: 'Test Org', role: 'owner' });
    expect(headers.get('ratelimit-limit')).toBe('300');
    expect(Number(headers.get('ratelimit-remaining'))).toBeLessThan(300);
    expect(headers.get('ratelimit-reset')).toMatch(/^\d+$/);
  });

  it('the home wallet was provisioned by its workflow', async () => {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.wallet(org.organizationId, org.homeWalletId) }));
    expect(Item).toMatchObject({ status: 'active', address: expect.stringMatching(/^0x[0-9a-f]{40}$/) });
  });
});

describe('authentication', () => {
  it.each([
    ['no header', {}],
    ['not a bearer', { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }],
    ['malformed key', { authorization: 'Bearer sk_sim_nope' }],
    ['empty bearer', { authorization: 'Bearer ' }],
  ])('401 unauthorized with %s', async (_label, headers) => {
    const { status, body, headers: responseHeaders } = await call(service, 'GET', '/me', { headers });
    expect(status).toBe(401);
    expect(body).toEqual({ error: 'unauthorized', message: expect.any(String) });
    expect(responseHeaders.get('ratelimit-limit')).toBeNull();
  });

  it('401 for a well-formed key with the wrong secret, and it costs the organization no token', async () => {
    const parsed = parseApiKey(org.apiKey, 'simulated')!;
    const forged = `${org.apiKey.slice(0, -5)}${org.apiKey.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA'}`;
    const before = await call(service, 'GET', '/me', { apiKey: org.apiKey });
    for (let i = 0; i < 5; i += 1) {
      expect((await call(service, 'GET', '/me', { apiKey: forged })).status).toBe(401);
    }
    const after = await call(service, 'GET', '/me', { apiKey: org.apiKey });
    // Only the legitimate request in between took a token (refill may add some back, never fewer).
    expect(Number(after.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(Number(before.headers.get('ratelimit-remaining')) - 1);
    expect(parsed.organizationId).toBe(org.organizationId);
  });

  it('401 for a key of an organization that does not exist', async () => {
    const stranger = issueApiKey('simulated', 'org_01JDZZZZZZZZZZZZZZZZZZZZZZ');
    expect((await call(service, 'GET', '/me', { apiKey: stranger.apiKey })).status).toBe(401);
  });

  it('a revoked key stops at once', async () => {
    const extra = await addApiKey(org.organizationId, { role: 'admin', environment: 'simulated' });
    expect((await call(service, 'GET', '/me', { apiKey: extra.apiKey })).body.role).toBe('admin');
    await revokeApiKey(org.organizationId, extra.keyId);
    expect((await call(service, 'GET', '/me', { apiKey: extra.apiKey })).status).toBe(401);
    expect((await call(service, 'GET', '/me', { apiKey: org.apiKey })).status).toBe(200);
  });
});

describe('permissions and KYB', () => {
  it('403 forbidden for a role without the permission, before the endpoint does anything', async () => {
    const viewer = await addApiKey(org.organizationId, { role: 'viewer', environment: 'simulated' });
    const quote = await call(service, 'POST', '/quotes', { apiKey: viewer.apiKey, body: {} });
    expect(quote.status).toBe(403);
    expect(quote.body).toEqual({ error: 'forbidden', message: expect.any(String) });
    expect(quote.headers.get('ratelimit-limit')).toBe('60');
    // recipient.read is granted to viewers: the request passes the gate.
    const recipients = await call(service, 'GET', '/recipients', { apiKey: viewer.apiKey });
    expect(recipients.status).toBe(200);
  });

  it('403 forbidden for an owner-only route with a non-owner key', async () => {
    const admin = await addApiKey(org.organizationId, { role: 'admin', environment: 'simulated' });
    expect((await call(service, 'POST', '/api-keys/rotate', { apiKey: admin.apiKey })).status).toBe(403);
  });

  it('403 kyb_required on a KYB-gated endpoint until the organization is approved; reads stay open', async () => {
    const pending = await createTestOrganization(service, 'pending', 'Pending Org');
    const gated = await call(service, 'GET', '/treasury/deposit-instructions', { apiKey: pending.apiKey });
    expect(gated.status).toBe(403);
    expect(gated.body).toEqual({ error: 'kyb_required', message: expect.any(String) });
    expect((await call(service, 'GET', '/me', { apiKey: pending.apiKey })).status).toBe(200);
  });
});

describe('rate limits', () => {
  it('429 rate_limited with Retry-After and retryAfterSeconds when the bucket is empty, and nothing is done', async () => {
    const limited = await createTestOrganization(service, 'approved', 'Limited Org');
    await setRateLimit(limited.organizationId, 'read', { burst: 3, perSecond: 0.2 });
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof call>> | undefined;
    for (let i = 0; i < 5; i += 1) {
      last = await call(service, 'GET', '/me', { apiKey: limited.apiKey });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(last!.body).toEqual({ error: 'rate_limited', message: expect.any(String), retryAfterSeconds: expect.any(Number) });
    expect(last!.body.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(last!.headers.get('retry-after')).toBe(String(last!.body.retryAfterSeconds));
    expect(last!.headers.get('ratelimit-limit')).toBe('3');
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    // Another bucket is untouched.
    expect((await call(service, 'POST', '/quotes', { apiKey: limited.apiKey, body: {} })).status).not.toBe(429);
  });

  it('holds under concurrency: of 40 simultaneous requests against the 9 tokens left of a burst of 10, exactly 9 pass', async () => {
    const busy = await createTestOrganization(service, 'approved', 'Busy Org');
    await setRateLimit(busy.organizationId, 'read', { burst: 10, perSecond: 0.01 });
    await call(service, 'GET', '/me', { apiKey: busy.apiKey }); // this process learns the limit
    const results = await Promise.all(Array.from({ length: 40 }, () => call(service, 'GET', '/me', { apiKey: busy.apiKey })));
    const passed = results.filter((result) => result.status === 200).length;
    expect(passed).toBe(9);
    expect(results.filter((result) => result.status === 429).length).toBe(31);
  });

  it('contention is not refusal: 60 simultaneous requests within the burst all pass', async () => {
    const crowded = await createTestOrganization(service, 'approved', 'Crowded Org');
    // Refill so slow that none lands during the burst, even on a loaded machine: every count is distinct.
    await setRateLimit(crowded.organizationId, 'read', { burst: 100, perSecond: 0.01 });
    await call(service, 'GET', '/me', { apiKey: crowded.apiKey });
    const results = await Promise.all(Array.from({ length: 60 }, () => call(service, 'GET', '/me', { apiKey: crowded.apiKey })));
    expect(results.map((result) => result.status)).toEqual(Array(60).fill(200));
    const remaining = results.map((result) => Number(result.headers.get('ratelimit-remaining'))).sort((a, b) => a - b);
    // Each request saw its own token go: 60 different counts, the lowest 39 (100 - 1 - 60).
    expect(new Set(remaining).size).toBe(60);
    expect(remaining[0]).toBeGreaterThanOrEqual(39);
  });
});

describe('hostile and malformed input', () => {
  const quote = { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '100.00', currency: 'USDC' } };

  it('a valid body reaches the endpoint: a quote, not a 4xx', async () => {
    const { status, body } = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: quote });
    expect(status).toBe(200);
    expect(body.quoteId).toMatch(/^q_/);
  });

  it.each([
    ['invalid JSON', '{"corridor": ', 'application/json', 400, 'invalid_json'],
    ['a wrong content type', JSON.stringify({}), 'text/plain', 415, 'unsupported_media_type'],
    ['no body at all', '', 'application/json', 400, 'bad_request'],
    ['bytes that are not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'application/json', 400, 'bad_request'],
    ['a body over 1 MiB', JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 10) }), 'application/json', 413, 'payload_too_large'],
  ])('%s is %s %s', async (_label, rawBody, contentType, status, error) => {
    const response = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, rawBody, headers: { 'content-type': contentType } });
    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ error, message: expect.any(String) });
  });

  it.each([
    ['a JSON array', []],
    ['a JSON string', 'hello'],
    ['null', null],
    ['wrong types', { corridor: 5, sendAmount: { amount: 100, currency: ['USDC'] } }],
    ['an amount with a sign', { ...quote, sendAmount: { amount: '-1', currency: 'USDC' } }],
    ['an amount in exponent form', { ...quote, sendAmount: { amount: '1e3', currency: 'USDC' } }],
    ['a country of three letters', { ...quote, corridor: { to: 'MXN', destinationCountry: 'MEX' } }],
    ['an oversized string', { ...quote, corridor: { to: 'M'.repeat(100_000), destinationCountry: 'MX' } }],
    ['a prototype-pollution attempt', JSON.parse('{"__proto__": {"admin": true}, "corridor": {"constructor": {"prototype": {"x": 1}}}}')],
  ])('%s is 400 validation with issues', async (_label, body) => {
    const response = await call(service, 'POST', '/quotes', { apiKey: org.apiKey, rawBody: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('validation');
    expect(response.body.issues.length).toBeGreaterThan(0);
    for (const issue of response.body.issues) {
      expect(issue).toEqual({ path: expect.any(Array), message: expect.any(String) });
    }
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('a bad query is 400 validation naming the query parameter', async () => {
    const response = await call(service, 'GET', '/transactions?limit=0', { apiKey: org.apiKey });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('validation');
    expect(response.body.issues[0].path).toEqual(['query', 'limit']);
  });

  it('hostile headers and paths never produce a 500', async () => {
    const attempts = [
      call(service, 'GET', '/me', { headers: { authorization: `Bearer ${'A'.repeat(8000)}` } }),
      call(service, 'GET', '/transactions/%E0%A4%A', { apiKey: org.apiKey }),
      call(service, 'GET', `/transactions/${'x'.repeat(3000)}`, { apiKey: org.apiKey }),
      // 265 characters but over 1 KB: past DynamoDB's key size if it were not refused first.
      call(service, 'GET', `/transactions/${encodeURIComponent('😀'.repeat(265))}`, { apiKey: org.apiKey }),
      call(service, 'DELETE', `/recipients/${encodeURIComponent('😀'.repeat(265))}`, { apiKey: org.apiKey }),
      call(service, 'DELETE', `/members/${encodeURIComponent('😀'.repeat(265))}`, { apiKey: org.apiKey }),
      call(service, 'GET', '/transactions/..%2F..%2Fetc%2Fpasswd', { apiKey: org.apiKey }),
      call(service, 'GET', '/transactions?cursor=%00%01&limit=abc', { apiKey: org.apiKey }),
    ];
    for (const response of await Promise.all(attempts)) {
      expect(response.status).toBeGreaterThanOrEqual(400);
      expect(response.status).toBeLessThanOrEqual(501);
      expect(response.status).not.toBe(500);
      expect(response.body).toMatchObject({ error: expect.any(String), message: expect.any(String) });
    }
  });
});

describe('the whole surface', () => {
  const unbuilt = routes.filter((definition) => definition.handler === notImplementedHandler);

  it('every unbuilt endpoint answers 501 not_implemented naming its feature, after auth', async () => {
    const owner = await createTestOrganization(service, 'approved', 'Surface Org');
    await setRateLimit(owner.organizationId, 'write', { burst: 500, perSecond: 100 });
    await setRateLimit(owner.organizationId, 'initiate', { burst: 500, perSecond: 100 });
    for (const definition of unbuilt) {
      const path = definition.path.replace(/\{[^}]+\}/g, 'some-id-123');
      const unauthenticated = await call(service, definition.method, path, {});
      if (definition.auth === 'key') expect(unauthenticated.status, routeKey(definition)).toBe(401);
      const answered = await call(service, definition.method, path, { apiKey: owner.apiKey, body: validishBody(definition.method) });
      if (answered.status === 400) continue; // the body schema is already enforced; 501 is shown with a valid body elsewhere
      expect(answered.status, routeKey(definition)).toBe(501);
      expect(answered.body, routeKey(definition)).toMatchObject({ error: 'not_implemented', feature: definition.feature, message: expect.any(String) });
    }
  });

  it('an unknown path is 404 not_found and a known path with another method is 405', async () => {
    const unknown = await call(service, 'GET', '/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ error: 'not_found', message: expect.any(String) });
    const wrongMethod = await call(service, 'DELETE', '/health');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET');
  });

  it('GET /openapi.json serves the document with every route', async () => {
    const { status, body } = await call(service, 'GET', '/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toMatch(/^3\.1\./);
    for (const definition of routes) {
      expect(body.paths[definition.path]?.[definition.method.toLowerCase()], routeKey(definition)).toBeDefined();
    }
  });
});

describe('the OpenAPI document matches what the service answers', () => {
  it('discovery bodies fit their documented schemas exactly, errors fit theirs', async () => {
    const { getHealth, getCapabilities, getMe, getTransaction } = await import('#contract/routes.ts');
    const { NotImplementedBody, RateLimitedBody, ValidationErrorBody, ErrorBody } = await import('#schemas/errors.ts');
    const exact = (schema: unknown, body: unknown) => {
      const strict = (schema as { strict?: () => { parse: (value: unknown) => unknown } }).strict;
      expect(() => (strict ? strict.call(schema) : (schema as { parse: (value: unknown) => unknown })).parse(body)).not.toThrow();
    };
    exact(getHealth.responses[200]!.schema, (await call(service, 'GET', '/health')).body);
    exact(getCapabilities.responses[200]!.schema, (await call(service, 'GET', '/capabilities')).body);
    exact(getMe.responses[200]!.schema, (await call(service, 'GET', '/me', { apiKey: org.apiKey })).body);
    expect(getTransaction.path).toBe('/transactions/{transactionId}');
    exact(ErrorBody, (await call(service, 'GET', '/transactions/tx-12345678', { apiKey: org.apiKey })).body);
    exact(NotImplementedBody, (await call(service, 'POST', '/banking/wire-transfers', { apiKey: org.apiKey, body: {} })).body);
    exact(ValidationErrorBody, (await call(service, 'POST', '/quotes', { apiKey: org.apiKey, body: {} })).body);
    exact(ErrorBody, (await call(service, 'GET', '/me')).body);
    const limited = await createTestOrganization(service, 'approved', 'Doc Org');
    await setRateLimit(limited.organizationId, 'read', { burst: 1, perSecond: 0.01 });
    await call(service, 'GET', '/me', { apiKey: limited.apiKey });
    exact(RateLimitedBody, (await call(service, 'GET', '/me', { apiKey: limited.apiKey })).body);
  });
});

function validishBody(method: string): unknown {
  return method === 'GET' || method === 'DELETE' ? undefined : {};
}

describe('cost of a read', () => {
  it('GET /me costs two DynamoDB calls, the key read and the bucket charge, sent together (one round trip)', async () => {
    const { dynamoCallCount } = await import('#store/client.ts');
    await call(service, 'GET', '/me', { apiKey: org.apiKey });
    const before = dynamoCallCount();
    for (let i = 0; i < 20; i += 1) expect((await call(service, 'GET', '/me', { apiKey: org.apiKey })).status).toBe(200);
    // The workflow runner's background sweep may add a query or two in the meantime. That the two
    // overlap is test/integration/access.test.ts's.
    expect(dynamoCallCount() - before).toBeLessThanOrEqual(42);
  });
});

// Last in the file: it stops this service's workflow runner.
describe('when the workflow engine is unreachable', () => {
  it('GET /health is 503 degraded with an error, and reads still work', async () => {
    await service.runner.stop();
    const { status, body } = await call(service, 'GET', '/health');
    expect(status).toBe(503);
    expect(body).toEqual({
      status: 'degraded',
      version: expect.any(String),
      uptimeSeconds: expect.any(Number),
      checks: { workflow: 'unreachable' },
      error: expect.any(String),
    });
    expect((await call(service, 'GET', '/me', { apiKey: org.apiKey })).status).toBe(200);
  });
});
