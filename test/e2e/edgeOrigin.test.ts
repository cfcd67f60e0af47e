import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { edgeOriginHeader } from '#platform/edgeOrigin.ts';
import { startTestService } from '../support/service.ts';

/**
 * The `execute-api` address is no way around the edge (docs/decisions/104): on sandbox and production
 * every endpoint refuses, as 403 with the contract's error body, a request without the secret header
 * CloudFront adds, before it reads a key or a body. Here the local service plays the HTTP API with the
 * stage's secret configured (ORIGIN_SECRET, as ORIGIN_SECRET_ARN is in AWS) and this test plays both
 * CloudFront (with the header) and a caller going around it (without).
 */
const secret = randomBytes(32).toString('hex');
let service: LocalService | undefined;

afterEach(async () => {
  await service?.stop();
  service = undefined;
});

afterAll(() => {
  delete process.env.ORIGIN_SECRET;
  process.env.SERVICE_ENVIRONMENT = 'simulated';
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${service!.url}${path}`, { headers });
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), body: JSON.parse(text) as Record<string, unknown> };
}

describe('the edge origin header', () => {
  it('on production, refuses what did not come through the edge, open routes and keyed ones alike, before the key is read', async () => {
    process.env.ORIGIN_SECRET = secret;
    service = await startTestService('production');
    const apiKey = (await onboardOrganization({ name: 'Edge Org', kybStatus: 'approved' })).apiKey.apiKey;
    const viaEdge = { [edgeOriginHeader]: secret };

    for (const path of ['/health', '/capabilities', '/notifications/unsubscribe?token=x']) {
      const around = await get(path);
      expect(around.status, path).toBe(403);
      expect(around.contentType).toMatch(/^application\/json/);
      expect(around.body).toEqual({ error: 'forbidden', message: expect.stringContaining("stage's public address") });
    }
    const wrong = await get('/health', { [edgeOriginHeader]: `${secret.slice(0, -1)}${secret.endsWith('0') ? '1' : '0'}` }); // the same length, one character off
    expect(wrong.status).toBe(403);
    const short = await get('/health', { [edgeOriginHeader]: secret.slice(0, 8) });
    expect(short.status).toBe(403);
    // Refused before the key: a valid key without the header is still 403, not 200; a bad one is 403, not 401.
    expect((await get('/me', { authorization: `Bearer ${apiKey}` })).status).toBe(403);
    expect((await get('/me', { authorization: 'Bearer nonsense' })).status).toBe(403);

    expect((await get('/health', viaEdge)).status).toBe(200);
    const me = await get('/me', { ...viaEdge, authorization: `Bearer ${apiKey}` });
    expect(me.status).toBe(200);
    expect((await get('/me', viaEdge)).status).toBe(401);
  });

  it('on simulated, which has no edge, checks nothing', async () => {
    process.env.ORIGIN_SECRET = secret;
    service = await startTestService('simulated');
    expect((await get('/health')).status).toBe(200);
  });
});
