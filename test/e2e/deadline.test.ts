import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';

/**
 * A request that runs out of its function's time answers the contract's 503 `unavailable` with
 * Retry-After (it may or may not have taken effect; a retry with the same key is safe), never 500:
 * under load, 50 concurrent payments past the local 10 s budget answered 500 `internal`.
 */
let service: LocalService;
let org: TestOrganization;

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
});

afterAll(async () => {
  await service?.stop();
});

function listEvent(apiKey: string) {
  return {
    version: '2.0',
    routeKey: 'GET /transactions',
    rawPath: '/transactions',
    rawQueryString: '',
    headers: { authorization: `Bearer ${apiKey}` },
    requestContext: { requestId: 'deadline', http: { method: 'GET', path: '/transactions' } },
    isBase64Encoded: false,
  };
}

describe('a request past its deadline', () => {
  it('answers 503 unavailable with Retry-After, and the same handler answers 200 with time to spare', async () => {
    const { handler } = await import('../../functions/api/transactions/listTransactions.ts');
    // 5 ms left when the handler starts: middy gives up 5 ms before Lambda would, so before the list's query returns.
    const late = await handler(listEvent(org.apiKey) as never, { getRemainingTimeInMillis: () => 5 } as never);
    expect(late.statusCode).toBe(503);
    expect(late.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(String(late.body))).toMatchObject({ error: 'unavailable', message: expect.stringContaining('same idempotency key') });

    const inTime = await handler(listEvent(org.apiKey) as never, { getRemainingTimeInMillis: () => 10_000 } as never);
    expect(inTime.statusCode).toBe(200);
  });
});
