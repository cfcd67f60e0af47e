import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { servedDocument, type OpenApiDocument, type ServedDocument } from '../support/servedDocument.ts';
import { useTemporaryOutbox } from '../support/team.ts';

/**
 * The answers a client generated from GET /openapi.json would have rejected (a quoteId pattern
 * carrying a JavaScript flag, `null` timestamps declared as strings), now read through `call`,
 * which holds every answer against the served document; and the check itself refuses what does
 * not fit, so a green suite means the document and the answers agree.
 */
let service: LocalService;
let org: TestOrganization;
let document: ServedDocument;

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Document Org');
  document = servedDocument((await (await fetch(`${service.url}/openapi.json`)).json()) as OpenApiDocument);
});

afterAll(async () => {
  await service?.stop();
});

describe('answers against the served OpenAPI document', () => {
  it('a quote fits it (its quoteId matches the declared pattern)', async () => {
    const quote = await call(service, 'POST', '/quotes', {
      apiKey: org.apiKey,
      body: { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '25.00', currency: 'USDC' } },
    });
    expect(quote.status).toBe(200);
    expect(document.mismatch('POST', '/quotes', 200, quote.body)).toBeUndefined();
  });

  it('an invited member fits it (acceptedAt null)', async () => {
    const invited = await call(service, 'POST', '/members/invitations', {
      apiKey: org.apiKey,
      body: { email: 'doc.reader@example.com', name: 'Doc Reader', role: 'viewer' },
    });
    expect(invited.status).toBe(201);
    expect(invited.body.member.acceptedAt).toBeNull();
    const listed = await call(service, 'GET', '/members', { apiKey: org.apiKey });
    expect(listed.status).toBe(200);
  });

  it('a recipient never used fits it (lastUsedAt null)', async () => {
    const created = await call(service, 'POST', '/recipients', {
      apiKey: org.apiKey,
      body: { name: 'Cold wallet', type: 'wallet', address: `0x${'c'.repeat(40)}`, networkId: 'base' },
    });
    expect(created.status).toBe(201);
    expect(created.body.lastUsedAt).toBeNull();
    expect((await call(service, 'GET', '/recipients', { apiKey: org.apiKey })).status).toBe(200);
  });

  it('refuses an answer that does not fit: an undeclared status, a wrong body, an unknown operation', () => {
    expect(document.mismatch('GET', '/balance', 418, { error: 'teapot', message: 'no' })).toMatch(/status not declared/);
    expect(document.mismatch('GET', '/me', 200, { id: 7 })).toMatch(/GET \/me 200/);
    expect(document.mismatch('POST', '/quotes', 200, undefined)).toMatch(/POST \/quotes 200/);
    expect(document.mismatch('GET', '/members/mem_1/invitations', 200, {})).toMatch(/no operation/);
    // Another media type must be one the response declares, its text held against that type's schema.
    expect(document.mismatch('GET', '/me', 200, 'id,name', 'text/csv')).toMatch(/answered text\/csv, declared only application\/json/);
    expect(document.mismatch('GET', '/statements', 200, 'transactionId\r\n', 'text/csv')).toBeUndefined();
    expect(document.mismatch('GET', '/statements', 200, { lines: [] }, 'text/csv')).toMatch(/GET \/statements 200/);
    // Deliberately outside the document, in the error shape: an unmatched path or method, node's 431.
    expect(document.mismatch('GET', '/no/such/path', 404, { error: 'not_found', message: 'No such endpoint.' })).toBeUndefined();
    expect(document.mismatch('DELETE', '/balance', 405, { error: 'method_not_allowed', message: 'No.' })).toBeUndefined();
    expect(document.mismatch('GET', '/balance', 431, { error: 'bad_request', message: 'Too large.' })).toBeUndefined();
    expect(document.mismatch('GET', '/no/such/path', 404, 'Not Found')).toBeDefined();
  });
});
