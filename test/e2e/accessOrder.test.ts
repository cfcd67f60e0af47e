import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { inviteAndAccept, useTemporaryOutbox } from '../support/team.ts';
import { issueApiKey, parseApiKey } from '#domain/apiKeys.ts';
import { addApiKey, revokeApiKey, setRateLimit } from '#store/organizations.ts';

/**
 * Authentication comes before the rate bucket (docs/decisions/076): an unknown or revoked key is
 * 401 whatever the organization's bucket holds, and never sees its `ratelimit-*` headers; only an
 * authenticated caller is told 429.
 */
let service: LocalService;

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
});

afterAll(async () => {
  await service?.stop();
});

function forge(apiKey: string): string {
  return `${apiKey.slice(0, -5)}${apiKey.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA'}`;
}

/** Empties the read bucket with the organization's own key (so this process has seen the bucket full). */
async function emptyReadBucket(organization: TestOrganization): Promise<void> {
  await setRateLimit(organization.organizationId, 'read', { burst: 1, perSecond: 0.001 });
  await call(service, 'GET', '/me', { apiKey: organization.apiKey });
  const refused = await call(service, 'GET', '/me', { apiKey: organization.apiKey });
  expect(refused.status).toBe(429);
}

function expectUnauthorizedWithoutBucket(answer: Awaited<ReturnType<typeof call>>): void {
  expect(answer.status).toBe(401);
  expect(answer.body).toEqual({ error: 'unauthorized', message: expect.any(String) });
  for (const header of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']) expect(answer.headers.get(header)).toBeNull();
}

describe('an empty bucket does not answer for a key that does not authenticate', () => {
  it('a well-formed key with the wrong secret, or a key id the organization never issued, is 401 without its headers', async () => {
    const organization = await createTestOrganization(service, 'approved', 'Drained Org');
    await emptyReadBucket(organization);
    expectUnauthorizedWithoutBucket(await call(service, 'GET', '/me', { apiKey: forge(organization.apiKey) }));
    const unknownKeyId = issueApiKey('simulated', organization.organizationId);
    expectUnauthorizedWithoutBucket(await call(service, 'GET', '/me', { apiKey: unknownKeyId.apiKey }));
    // The organization's own key still meets its empty bucket.
    const limited = await call(service, 'GET', '/me', { apiKey: organization.apiKey });
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: 'rate_limited', message: expect.any(String), retryAfterSeconds: expect.any(Number) });
    expect(limited.headers.get('ratelimit-limit')).toBe('1');
    expect(limited.headers.get('ratelimit-remaining')).toBe('0');
    expect(limited.headers.get('retry-after')).toBe(String(limited.body.retryAfterSeconds));
  });

  it('a rotated organization key is 401, not 429', async () => {
    const organization = await createTestOrganization(service, 'approved', 'Rotated Org');
    expect((await call(service, 'GET', '/me', { apiKey: organization.apiKey })).status).toBe(200);
    const rotated = await call(service, 'POST', '/api-keys/rotate', { apiKey: organization.apiKey });
    expect(rotated.status).toBe(200);
    await emptyReadBucket({ ...organization, apiKey: rotated.body.apiKey });
    expectUnauthorizedWithoutBucket(await call(service, 'GET', '/me', { apiKey: organization.apiKey }));
  });

  it('a rotated member key and a removed member key are 401, not 429', async () => {
    const organization = await createTestOrganization(service, 'approved', 'Team Org');
    const rotating = await inviteAndAccept(service, organization.apiKey, 'admin');
    const leaving = await inviteAndAccept(service, organization.apiKey, 'viewer');
    expect((await call(service, 'GET', '/me', { apiKey: rotating.apiKey })).status).toBe(200);
    expect((await call(service, 'GET', '/me', { apiKey: leaving.apiKey })).status).toBe(200);
    const rotated = await call(service, 'POST', '/members/me/api-key', { apiKey: rotating.apiKey });
    expect(rotated.status).toBe(200);
    expect((await call(service, 'DELETE', `/members/${leaving.memberId}`, { apiKey: organization.apiKey })).status).toBe(200);
    await emptyReadBucket(organization);
    expectUnauthorizedWithoutBucket(await call(service, 'GET', '/me', { apiKey: rotating.apiKey }));
    expectUnauthorizedWithoutBucket(await call(service, 'GET', '/me', { apiKey: leaving.apiKey }));
    // The member's new key authenticates, and so meets the bucket.
    expect((await call(service, 'GET', '/me', { apiKey: rotated.body.apiKey })).status).toBe(429);
  });

  it('a key revoked after it was used takes no token: its request is 401 and the bucket is as it was', async () => {
    const organization = await createTestOrganization(service, 'approved', 'Refund Org');
    await setRateLimit(organization.organizationId, 'read', { burst: 10, perSecond: 0.001 });
    const extra = await addApiKey(organization.organizationId, { role: 'admin', environment: 'simulated' });
    expect((await call(service, 'GET', '/me', { apiKey: extra.apiKey })).status).toBe(200);
    const before = Number((await call(service, 'GET', '/me', { apiKey: organization.apiKey })).headers.get('ratelimit-remaining'));
    await revokeApiKey(organization.organizationId, parseApiKey(extra.apiKey, 'simulated')!.keyId);
    for (let i = 0; i < 3; i += 1) expectUnauthorizedWithoutBucket(await call(service, 'GET', '/me', { apiKey: extra.apiKey }));
    const after = Number((await call(service, 'GET', '/me', { apiKey: organization.apiKey })).headers.get('ratelimit-remaining'));
    expect(after).toBe(before - 1);
  });
});
