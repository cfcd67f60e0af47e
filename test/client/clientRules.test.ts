import { Webhook } from 'standardwebhooks';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { ApiError, WebhookVerificationError, createClient, unwrap, verifyWebhook, type ErrorBody, type WebhookEvent } from '@payments/client';

/**
 * The client's own rules (retries, the cursor walk, idempotency keys, errors, webhook verification)
 * against a scripted transport: `fetch` is the client's port to the network, and a script of answers
 * is the only way to make a 503 or a lost connection happen on cue. The same rules against the real
 * service: test/client/service.test.ts.
 */
type Scripted = { status: number; body?: unknown; headers?: Record<string, string> } | Error;

function transport(...script: Scripted[]) {
  const requests: { method: string; url: URL; body: any }[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const text = await request.text();
    requests.push({ method: request.method, url: new URL(request.url), body: text ? JSON.parse(text) : undefined });
    const next = script.length > 1 ? script.shift()! : script[0]!;
    if (next instanceof Error) throw next;
    return new Response(next.body === undefined ? null : JSON.stringify(next.body), {
      status: next.status,
      headers: { 'content-type': 'application/json', ...next.headers },
    });
  };
  return { fetch, requests };
}

const unavailable = { status: 503, body: { error: 'unavailable', message: 'try again' } };
const rateLimited = (seconds: string) => ({ status: 429, headers: { 'retry-after': seconds }, body: { error: 'rate_limited', message: 'slow down', retryAfterSeconds: Number(seconds) || 1 } });
const payment = {
  corridor: { to: 'MXN', destinationCountry: 'MX' },
  sendAmount: { amount: '25.00', currency: 'USDC' },
  recipientReference: 'Invoice 7',
  beneficiary: { name: 'María López', account: '002010077777777771' },
};
const fast = { backoffMs: 1 };

describe('idempotency keys', () => {
  it('a money-moving call without a key gets one, sent in the body and answered with the result', async () => {
    const { fetch, requests } = transport({ status: 202, body: { transactionId: 'x', status: 'FUNDED' } });
    const client = createClient({ baseUrl: 'http://api.test/', apiKey: 'sk_test', fetch });
    const sent = await client.initiate('/transactions', { body: payment });
    expect(sent.idempotencyKey).toMatch(/^[A-Za-z0-9_.:-]{8,200}$/);
    expect(requests[0]!.body.idempotencyKey).toBe(sent.idempotencyKey);
    expect(requests[0]!.url.href).toBe('http://api.test/transactions');
    expect(sent.data).toEqual({ transactionId: 'x', status: 'FUNDED' });
  });

  it("the caller's key is kept, and a batch's key is its batchId", async () => {
    const { fetch, requests } = transport({ status: 202, body: {} });
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch });
    expect((await client.initiate('/transactions', { body: { ...payment, idempotencyKey: 'invoice-0007' } })).idempotencyKey).toBe('invoice-0007');
    const batch = await client.initiate('/batches', {
      body: { corridor: { to: 'MXN', destinationCountry: 'MX' }, provider: 'spei', items: [{ itemRef: 'a', sendAmount: { amount: '1', currency: 'USDC' }, recipientReference: 'r', recipientId: 'rcp_1' }] },
    });
    expect(requests.map((request) => request.body.idempotencyKey ?? request.body.batchId)).toEqual(['invoice-0007', batch.idempotencyKey]);
    expect(requests[1]!.body.idempotencyKey).toBeUndefined();
  });
});

describe('retries', () => {
  it('a 429 is sent again after Retry-After, and its answer is the one returned', async () => {
    const { fetch, requests } = transport(rateLimited('1'), { status: 200, body: { transactions: [], count: 0, nextCursor: null, hasMore: false } });
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch });
    const started = Date.now();
    const { data, error } = await client.GET('/transactions', { params: { query: { limit: 5 } } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(error).toBeUndefined();
    expect(data?.count).toBe(0);
    expect(requests).toHaveLength(2);
  });

  it('a 429 asking for a longer wait than the policy allows is answered at once, typed', async () => {
    const { fetch, requests } = transport(rateLimited('3600'));
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch });
    const { error, response } = await client.GET('/balance');
    expect(response.status).toBe(429);
    expect(requests).toHaveLength(1);
    if (error?.error !== 'rate_limited') throw new Error(`expected rate_limited, got ${JSON.stringify(error)}`);
    expect(error.retryAfterSeconds).toBe(3600);
  });

  it('a 503 on a payment is sent again with the same idempotency key, then succeeds', async () => {
    const { fetch, requests } = transport(unavailable, unavailable, { status: 202, body: { transactionId: 'k', status: 'FUNDED' } });
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch, retry: fast });
    const sent = await client.initiate('/transactions', { body: payment });
    expect(sent.response.status).toBe(202);
    expect(requests).toHaveLength(3);
    expect(new Set(requests.map((request) => request.body.idempotencyKey))).toEqual(new Set([sent.idempotencyKey]));
  });

  it('retries are bounded: after `attempts` tries the 503 is the answer', async () => {
    const { fetch, requests } = transport(unavailable);
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch, retry: { ...fast, attempts: 3 } });
    const { error, response } = await client.POST('/transactions', { body: { ...payment, idempotencyKey: 'invoice-0008' } });
    expect(response.status).toBe(503);
    expect(error?.error).toBe('unavailable');
    expect(requests).toHaveLength(3);
  });

  it('a lost connection is tried again for a GET, and thrown once the tries are spent', async () => {
    const lost = new TypeError('fetch failed');
    const recovered = transport(lost, { status: 200, body: { currency: 'USDC', scale: 6, available: '1', settling: '0', total: '1' } });
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch: recovered.fetch, retry: fast });
    expect((await client.GET('/balance')).response.status).toBe(200);
    const down = transport(lost);
    await expect(createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch: down.fetch, retry: { ...fast, attempts: 2 } }).GET('/balance')).rejects.toBe(lost);
    expect(down.requests).toHaveLength(2);
  });

  it('a write without an idempotency key is not repeated on a 503 or a lost connection', async () => {
    const recipient = { name: 'Ana López', type: 'bank' as const, account: '002010077777777771', country: 'MX' };
    const failing = transport(unavailable);
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch: failing.fetch, retry: fast });
    expect((await client.POST('/recipients', { body: recipient })).response.status).toBe(503);
    expect(failing.requests).toHaveLength(1);
    const lost = transport(new TypeError('fetch failed'));
    await expect(createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch: lost.fetch, retry: fast }).POST('/recipients', { body: recipient })).rejects.toThrow('fetch failed');
    expect(lost.requests).toHaveLength(1);
  });

  it("GET /health's degraded 503 is its answer, not a failure to retry", async () => {
    const { fetch, requests } = transport({ status: 503, body: { status: 'degraded' } });
    const { response } = await createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch, retry: fast }).GET('/health');
    expect(response.status).toBe(503);
    expect(requests).toHaveLength(1);
  });
});

describe('the cursor walk', () => {
  it('follows nextCursor, unchanged, until it is null, through an empty page', async () => {
    const row = (id: string) => ({ transactionId: id, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '1', currency: 'USDC', scale: 6 }, recipientReference: 'r', createdAt: '2026-01-01T00:00:00.000Z' });
    const { fetch, requests } = transport(
      { status: 200, body: { transactions: [row('a'), row('b')], count: 2, nextCursor: 'c1+/=', hasMore: true } },
      { status: 200, body: { transactions: [], count: 0, nextCursor: 'c2', hasMore: true } },
      { status: 200, body: { transactions: [row('c')], count: 1, nextCursor: null, hasMore: false } },
    );
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch });
    const ids: string[] = [];
    for await (const tx of client.paginate('/transactions', { query: { limit: 2 } })) ids.push(tx.transactionId);
    expect(ids).toEqual(['a', 'b', 'c']);
    expect(requests.map((request) => [request.url.searchParams.get('limit'), request.url.searchParams.get('cursor')])).toEqual([['2', null], ['2', 'c1+/='], ['2', 'c2']]);
  });

  it('throws the error answer as an ApiError with the typed body', async () => {
    const { fetch } = transport({ status: 400, body: { error: 'invalid_cursor', message: 'not a cursor this service issued' } });
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch });
    const walk = async () => {
      for await (const event of client.paginate('/events')) void event;
    };
    const thrown = await walk().catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(ApiError);
    expect(thrown).toMatchObject({ status: 400, code: 'invalid_cursor', body: { error: 'invalid_cursor' } });
  });
});

describe('errors', () => {
  it('a result carries the operation\'s error union, discriminated on `error`; unwrap throws it', async () => {
    const issues = [{ path: ['beneficiary', 'account'], message: 'Required' }];
    const { fetch } = transport({ status: 400, body: { error: 'validation', message: 'invalid body', issues } });
    const client = createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch });
    const result = await client.initiate('/transactions', { body: payment });
    expect(result.data).toBeUndefined();
    if (result.error?.error !== 'validation') throw new Error('expected a validation error');
    expectTypeOf(result.error.issues).toEqualTypeOf<{ path: (string | number)[]; message: string }[]>();
    expect(result.error.issues).toEqual(issues);
    expect(() => unwrap(result)).toThrow(ApiError);
    expect(() => unwrap(result)).toThrow('400 validation: invalid body');
  });

  it('an answer outside the contract (a proxy page) is a plain Error with its status, not an ApiError', async () => {
    const fetch = async () => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } });
    const result = await createClient({ baseUrl: 'http://api.test', apiKey: 'sk_test', fetch }).GET('/balance');
    expect(() => unwrap(result)).toThrow(/^502 .*Bad gateway/);
    expect(() => unwrap(result)).not.toThrow(ApiError);
  });

  it('ErrorBody is every documented code, each with its own fields', () => {
    expectTypeOf<Extract<ErrorBody, { error: 'insufficient_funds' }>['available']>().toHaveProperty('amount');
    expectTypeOf<Extract<ErrorBody, { error: 'rate_limited' }>['retryAfterSeconds']>().toEqualTypeOf<number>();
    expectTypeOf<'no_such_code'>().not.toExtend<ErrorBody['error']>();
  });
});

describe('webhooks', () => {
  const secret = `whsec_${Buffer.from('a secret of thirty-two bytes!!!!').toString('base64')}`;
  const event = { type: 'transaction.reconciled', timestamp: '2026-01-01T00:00:00.000Z', data: { transactionId: 'k', running: false, state: 'RECONCILED' } };
  const signed = () => {
    const payload = JSON.stringify(event);
    const id = 'evt_1';
    const timestamp = new Date();
    return { payload, headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)), 'webhook-signature': new Webhook(secret).sign(id, timestamp, payload) } };
  };

  it('answers the typed event from a signed delivery, with Node or fetch headers', () => {
    const { payload, headers } = signed();
    const verified = verifyWebhook(payload, headers, secret);
    expectTypeOf(verified).toEqualTypeOf<WebhookEvent>();
    expect(verified).toEqual(event);
    expect(verifyWebhook(new TextEncoder().encode(payload), new Headers(headers), secret)).toEqual(event);
  });

  it('throws WebhookVerificationError for a changed body or another secret', () => {
    const { payload, headers } = signed();
    expect(() => verifyWebhook(payload.replace('RECONCILED', 'REFUNDED'), headers, secret)).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(payload, headers, `whsec_${Buffer.from('another secret, thirty-two bytes').toString('base64')}`)).toThrow(WebhookVerificationError);
  });
});
