import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { abandonedCallCount } from '#store/client.ts';
import { creditDeposit } from '#store/ledger.ts';
import { until } from '../support/eventually.ts';
import { loggedThisTest } from '../support/failureLogs.ts';

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
    // 5 ms left when the handler starts: the endpoint answers 500 ms before Lambda's deadline, so at once, before the list's query returns.
    const late = await handler(listEvent(org.apiKey) as never, { getRemainingTimeInMillis: () => 5 } as never);
    expect(late.statusCode).toBe(503);
    expect(late.headers?.['retry-after']).toBe('1');
    expect(JSON.parse(String(late.body))).toMatchObject({ error: 'unavailable', message: expect.stringContaining('same idempotency key') });

    const inTime = await handler(listEvent(org.apiKey) as never, { getRemainingTimeInMillis: () => 10_000 } as never);
    expect(inTime.statusCode).toBe(200);
  });

  it("abandons the handler's remaining calls with it: a payment answered 503 before its write is never made later", async () => {
    const { handler } = await import('../../functions/api/transactions/createTransaction.ts');
    await creditDeposit({ organizationId: org.organizationId, depositId: `deadline-${Date.now().toString(36)}`, amount: 1_000n * 1_000_000n, rail: 'wire', memo: 'test deposit' });
    const body = {
      idempotencyKey: `deadline-${Date.now().toString(36)}`,
      corridor: { to: 'MXN', destinationCountry: 'MX' },
      sendAmount: { amount: '10.00', currency: 'USDC' },
      recipientReference: 'deadline',
      beneficiary: sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!),
    };
    const event = {
      version: '2.0',
      routeKey: 'POST /transactions',
      rawPath: '/transactions',
      rawQueryString: '',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
      requestContext: { requestId: 'deadline-write', http: { method: 'POST', path: '/transactions' } },
      isBase64Encoded: false,
    };
    const abandonedBefore = abandonedCallCount();
    const late = await handler(event as never, { getRemainingTimeInMillis: () => 5 } as never);
    expect(late.statusCode).toBe(503);
    // Were its calls left running, the payment would be written a few milliseconds later. Once one of
    // its calls is abandoned, every later one is too (the invocation's signal stays aborted).
    await until(async () => abandonedCallCount(), (count) => count > abandonedBefore, { what: "a call of the 503'd payment to be abandoned", timeoutMs: 10_000 });
    const listed = await call(service, 'GET', '/transactions', { apiKey: org.apiKey });
    expect(listed.body.transactions).toEqual([]);
    // The person on call reads one WARN for it ("request past its deadline"), not "unhandled error" at
    // ERROR for what the abandoned calls throw afterwards.
    expect(loggedThisTest().filter((line) => /"level":"ERROR","message":"unhandled error"/.test(line))).toEqual([]);
    expect(loggedThisTest().filter((line) => line.includes('"message":"request past its deadline"'))).toHaveLength(1);
    // The integrator's retry with time to spare makes the one payment.
    const retried = await handler(event as never, { getRemainingTimeInMillis: () => 10_000 } as never);
    expect(retried.statusCode).toBe(202);
    expect((await call(service, 'GET', '/transactions', { apiKey: org.apiKey })).body.transactions).toHaveLength(1);
  });
});
