import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { httpApiIntegrationTimeoutMs, httpApiMaxBodyBytes, lambdaMaxRequestBytes, lambdaMaxResponseBytes, startHttpServer } from '../../lib/local/httpServer.ts';
import { maxBodyBytes } from '#platform/request.ts';
import { createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { invocations, sizedRoutes } from '../support/sizedFunction.ts';

/**
 * The limits AWS puts between a client and a function, held by the local HTTP adapter and answered
 * as HTTP API answers them (docs/decisions/103): Lambda's 6 MB request (the event as JSON, body
 * base64-encoded, headers and all) and response (the result as JSON), HTTP API's 10 MB body and
 * its 30 s integration timeout. HTTP API's answers are its own bodies, not the contract's: these
 * tests read them with fetch, not with the contract-checking client.
 */
describe('the HTTP adapter between a client and a function', () => {
  let server: Awaited<ReturnType<typeof startHttpServer>>;
  beforeAll(async () => {
    server = await startHttpServer({ port: 0, routes: sizedRoutes });
  });
  afterAll(async () => {
    await server?.close();
  });

  const echo = (body: Buffer, pad: string) =>
    fetch(`${server.url}/sized/echo`, { method: 'POST', headers: { 'content-type': 'application/octet-stream', 'x-pad': pad }, body });

  it("hands the function an event of exactly Lambda's 6 MB request limit, and refuses one byte more before the function runs", async () => {
    // A body whose base64 (4 bytes per 3) leaves room for the event around it, then a header that fills the rest to the byte.
    const body = Buffer.alloc(3 * Math.floor((lambdaMaxRequestBytes - 4096) / 4), 'a');
    const probe = (await (await echo(body, '')).json()) as { eventBytes: number };
    const fill = 'p'.repeat(lambdaMaxRequestBytes - probe.eventBytes);

    const atLimit = await echo(body, fill);
    expect(atLimit.status).toBe(200);
    expect(await atLimit.json()).toEqual({ eventBytes: lambdaMaxRequestBytes });

    const calls = invocations.length;
    const over = await echo(body, `${fill}p`);
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({ message: 'Request Too Long' });
    expect(invocations.length).toBe(calls);
  });

  it("answers a result of exactly Lambda's response limit, and HTTP API's 500 for one byte more", async () => {
    const atLimit = await fetch(`${server.url}/sized/answer?bytes=${lambdaMaxResponseBytes}`);
    expect(atLimit.status).toBe(200);
    expect((await atLimit.text()).length).toBeGreaterThan(6 * 1024 * 1024 - 100);

    const over = await fetch(`${server.url}/sized/answer?bytes=${lambdaMaxResponseBytes + 1}`);
    expect(over.status).toBe(500);
    expect(over.headers.get('content-type')).toBe('application/json');
    expect(await over.json()).toEqual({ message: 'Internal Server Error' });
  });

  it("answers HTTP API's 413 for a body past its 10 MB, without calling the function", async () => {
    const calls = invocations.length;
    const over = await fetch(`${server.url}/sized/echo`, { method: 'POST', body: Buffer.alloc(httpApiMaxBodyBytes + 1, 'a') });
    expect(over.status).toBe(413);
    expect(await over.text()).toBe(`HTTP content length exceeded ${httpApiMaxBodyBytes} bytes.`);
    expect(invocations.length).toBe(calls);
  });

  it("answers HTTP API's 503 after its 30 s integration timeout, whatever the function's own timeout", async () => {
    // The function here ignores its context's deadline and takes 35 s: HTTP API stops waiting at 30 s.
    const started = Date.now();
    const late = await fetch(`${server.url}/sized/slow?ms=35000`);
    const elapsed = Date.now() - started;
    expect(late.status).toBe(503);
    expect(await late.json()).toEqual({ message: 'Service Unavailable' });
    expect(elapsed).toBeGreaterThanOrEqual(httpApiIntegrationTimeoutMs);
    expect(elapsed).toBeLessThan(35_000);
  }, 60_000);
});

describe('the service behind the adapter, given bodies past its own bound', () => {
  let service: LocalService;
  let org: TestOrganization;
  beforeAll(async () => {
    service = await startTestService();
    org = await createTestOrganization(service);
  });
  afterAll(async () => {
    await service?.stop();
  });

  const postBatch = (bytes: number) =>
    fetch(`${service.url}/batches`, {
      method: 'POST',
      headers: { authorization: `Bearer ${org.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ pad: 'x'.repeat(bytes) }),
    });

  it("answers the contract's 413 while the event fits Lambda, and HTTP API's own 413 past it (about 4.7 MB of body)", async () => {
    const fits = await postBatch(4 * 1024 * 1024);
    expect(fits.status).toBe(413);
    expect(await fits.json()).toMatchObject({ error: 'payload_too_large', limitBytes: maxBodyBytes });

    const past = await postBatch(5 * 1024 * 1024);
    expect(past.status).toBe(413);
    expect(await past.json()).toEqual({ message: 'Request Too Long' });
  });
});
