import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, createClient, unwrap, type PaymentsClient } from '@payments/client';
import type { LocalService } from '../../lib/local/service.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { until } from '../support/eventually.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { servedDocument, type OpenApiDocument, type ServedDocument } from '../support/servedDocument.ts';

/**
 * The typed client against the real local service: a payment sent and followed to RECONCILED, the
 * cursor walk across pages, an error answer typed, a 429 waited out. Its transport is the global fetch
 * with a recorder around it, which also holds every answer against the served OpenAPI document.
 */
let service: LocalService;
let document: ServedDocument;
const corridor = { to: 'MXN', destinationCountry: 'MX' };
const beneficiary = { name: 'María López', account: '002010077777777771' };
const key = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

function clientOf(organization: TestOrganization) {
  const statuses: number[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const response = await globalThis.fetch(request);
    statuses.push(response.status);
    const url = new URL(request.url);
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    if (mediaType === 'application/json') {
      const mismatch = document.mismatch(request.method, url.pathname, response.status, await response.clone().json());
      if (mismatch) throw new Error(`${request.method} ${url.pathname}: the answer does not fit the served document: ${mismatch}`);
    }
    return response;
  };
  return { client: createClient({ baseUrl: service.url, apiKey: organization.apiKey, fetch }), statuses };
}

async function funded(name: string, usdc: bigint): Promise<TestOrganization> {
  const organization = await createTestOrganization(service, 'approved', name);
  await creditDeposit({ organizationId: organization.organizationId, depositId: key('dep'), amount: usdc * 1_000_000n, rail: 'wire', memo: 'test deposit' });
  return organization;
}

beforeAll(async () => {
  service = await startTestService();
  document = servedDocument((await (await fetch(`${service.url}/openapi.json`)).json()) as OpenApiDocument);
});

afterAll(async () => {
  await service?.stop();
});

describe('the typed client against the service', () => {
  it('sends a quoted payment with a key it made, follows it to RECONCILED, and a resend is the same payment', async () => {
    const { client } = clientOf(await funded('Client Payer', 1_000n));
    const quote = unwrap(await client.POST('/quotes', { body: { corridor, sendAmount: { amount: '100.00', currency: 'USDC' } } }));
    const sent = await client.initiate('/transactions', {
      body: { quoteId: quote.quoteId, corridor, sendAmount: { amount: '100.00', currency: 'USDC' }, recipientReference: 'Invoice 1', beneficiary },
    });
    expect(sent.error).toBeUndefined();
    expect(sent.data).toEqual({ transactionId: sent.idempotencyKey, status: 'FUNDED' });

    const transactionId = sent.idempotencyKey;
    const settled = await until(
      async () => unwrap(await client.GET('/transactions/{transactionId}', { params: { path: { transactionId } } })),
      (status) => !status.running,
      { what: `${transactionId} to end`, timeoutMs: 20_000 },
    );
    expect(settled.state).toBe('RECONCILED');
    expect(settled.timeline?.map((entry) => entry.state)).toEqual(['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'SETTLING', 'PAID_OUT', 'RECONCILED']);

    // The same key again: the same payment, not a second one (the retry the key is returned for).
    const again = await client.POST('/transactions', {
      body: { idempotencyKey: transactionId, quoteId: quote.quoteId, corridor, sendAmount: { amount: '100.00', currency: 'USDC' }, recipientReference: 'Invoice 1', beneficiary },
    });
    expect(again.data?.transactionId).toBe(transactionId);
    expect(unwrap(await client.GET('/balance')).available).toBe('900000000');
  });

  it('walks the transactions across pages, newest first, each once', async () => {
    const { client, statuses } = clientOf(await funded('Client Pager', 1_000n));
    const sent: string[] = [];
    for (let index = 0; index < 5; index++) {
      const { idempotencyKey, response } = await client.initiate('/transactions', {
        body: { corridor, sendAmount: { amount: '2.00', currency: 'USDC' }, recipientReference: `Page ${index}`, beneficiary },
      });
      expect(response.status).toBe(202);
      sent.push(idempotencyKey);
    }
    const before = statuses.length;
    const walked: string[] = [];
    for await (const tx of client.paginate('/transactions', { query: { limit: 2 } })) walked.push(tx.transactionId);
    expect(walked).toEqual([...sent].reverse());
    expect(statuses.length - before).toBe(3);
  });

  it('answers a refusal as the typed error of its code', async () => {
    const { client } = clientOf(await createTestOrganization(service, 'approved', 'Client Refused'));
    const invalid = await client.initiate('/transactions', {
      body: { corridor, sendAmount: { amount: 'ten', currency: 'USDC' }, recipientReference: 'Invoice 2', beneficiary },
    });
    expect(invalid.response.status).toBe(400);
    if (invalid.error?.error !== 'validation') throw new Error(`expected validation, got ${JSON.stringify(invalid.error)}`);
    expect(invalid.error.issues.map((issue) => issue.path)).toContainEqual(['sendAmount', 'amount']);

    const unfunded = await client.initiate('/transactions', {
      body: { corridor, sendAmount: { amount: '10.00', currency: 'USDC' }, recipientReference: 'Invoice 3', beneficiary },
    });
    if (unfunded.error?.error !== 'insufficient_funds') throw new Error(`expected insufficient_funds, got ${JSON.stringify(unfunded.error)}`);
    expect(unfunded.error.available).toMatchObject({ amount: '0', currency: 'USDC' });

    const missing = await client.GET('/transactions/{transactionId}', { params: { path: { transactionId: 'never-sent-0001' } } });
    expect(() => unwrap(missing)).toThrow(ApiError);
    expect(missing.error).toMatchObject({ error: 'not_found' });
  });

  it("waits out a 429 for its Retry-After and answers the retry's result", async () => {
    const organization = await createTestOrganization(service, 'approved', 'Client Limited');
    // One token every 4 s. The first call (not the client's) takes it and teaches the service this
    // organization's limit: a process that has not yet seen a changed limit may admit a request or two
    // more under the old one (store/access.ts), which made two concurrent calls both pass now and then.
    await setRateLimits(organization.organizationId, { burst: 1, perSecond: 0.25 });
    const { client, statuses }: { client: PaymentsClient; statuses: number[] } = clientOf(organization);
    expect((await call(service, 'GET', '/me', { apiKey: organization.apiKey })).status).toBe(200);
    const answer = await client.GET('/me');
    expect(answer.response.status).toBe(200);
    expect(statuses).toEqual([429, 200]);
  });
});
