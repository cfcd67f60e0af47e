import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, untilSettled, type TestOrganization } from '../support/service.ts';
import { inviteAndAccept, mailedLink, useTemporaryOutbox, type Teammate } from '../support/team.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { getReference, routeKey, routes } from '#contract/routes.ts';

/**
 * The pages the e-mailed links open, through HTTP as a browser gets them (docs/decisions/110, 112):
 * each one, whatever it says (verified, asked, unsubscribed, invited, accepted, not valid), carries
 * the page kit's headers: no script but an inline one allowed by its hash, no framing, forms only back
 * to the service, no referrer (their URLs carry tokens), no sniffing, no caching. The rows are walked
 * from the route table, so a page added later is held to it.
 */
let service: LocalService;
let org: TestOrganization;

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Pages Org');
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
  await creditDeposit({ organizationId: org.organizationId, depositId: `dep-pages-${Date.now()}`, amount: 10_000n * 1_000_000n, rail: 'wire', memo: 'test deposit' });
});

afterAll(async () => {
  await service?.stop();
});

// The reference page (GET /docs) runs a script by design, under a policy of its own: test/e2e/reference.test.ts.
const pageRows = routes.filter((definition) => definition !== getReference && Object.values(definition.responses).some((response) => response.html));
const form = { 'content-type': 'application/x-www-form-urlencoded' };

/** The CSP hash source of an inline element's text, computed here, apart from the kit. */
const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

function expectPageHeaders(answer: { status: number; headers: Headers; body: unknown }, what: string) {
  expect(answer.headers.get('content-type'), what).toMatch(/^text\/html; charset=utf-8$/);
  const policy = (answer.headers.get('content-security-policy') ?? '').split(';').map((directive) => directive.trim());
  expect(policy, what).toEqual(expect.arrayContaining(["default-src 'none'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"]));
  // Nothing loosens it: nothing inline or evaluated but by hash, no wildcard, no script from anywhere.
  expect(policy.some((directive) => /unsafe-inline|unsafe-eval|unsafe-hashes|\*|data:|https?:/.test(directive)), what).toBe(false);
  const sources = (name: string) => policy.find((directive) => directive.startsWith(`${name} `))?.split(/\s+/).slice(1) ?? [];
  for (const name of ['script-src', 'style-src']) {
    for (const source of sources(name)) expect(source, `${what}: ${name}`).toMatch(/^'sha256-[A-Za-z0-9+/]+=*'$/);
  }
  // Each inline script and style the page holds runs by its hash in the policy: computed from the page as served.
  const body = String(answer.body);
  for (const [tag, name] of [['script', 'script-src'], ['style', 'style-src']] as const) {
    for (const [, attributes, text] of body.matchAll(new RegExp(`<${tag}([^>]*)>([\\s\\S]*?)</${tag}>`, 'gi'))) {
      expect(attributes, `${what}: an inline ${tag}, nothing loaded`).toBe('');
      expect(sources(name), `${what}: the hash of its ${tag}`).toContain(hashOf(text!));
    }
  }
  expect(answer.headers.get('x-frame-options'), what).toBe('DENY');
  expect(answer.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(answer.headers.get('referrer-policy'), what).toBe('no-referrer');
  expect(answer.headers.get('cache-control'), what).toBe('no-store');
  expect(body, what).not.toMatch(/<iframe|<img|<link|\son\w+=|\sstyle=/i);
  // What axe-core asks of every page: a language, a title, a viewport, one main landmark with one h1.
  expect(body, what).toMatch(/<html lang="en">/);
  expect(body, what).toMatch(/<title>[^<]+<\/title>/);
  expect(body, what).toContain('<meta name="viewport"');
  expect(body.match(/<main>/g), what).toHaveLength(1);
  expect(body.match(/<h1>/g), what).toHaveLength(1);
}


describe('every page carries the kit\'s headers', () => {
  it('the page rows of the route table are the six link pages', () => {
    expect(pageRows.map(routeKey).sort()).toEqual([
      'GET /invitations/accept', 'GET /notifications/unsubscribe', 'GET /notifications/verify',
      'POST /invitations/accept', 'POST /notifications/unsubscribe', 'POST /notifications/verify',
    ]);
  });

  it.each(pageRows.map((definition) => [routeKey(definition), definition] as const))('%s with a token nobody issued: a 410 page', async (_key, definition) => {
    const answer = definition.method === 'GET'
      ? await call(service, 'GET', `${definition.path}?token=nothing-issued-this`)
      : await call(service, 'POST', `${definition.path}?token=nothing-issued-this`, { rawBody: 'List-Unsubscribe=One-Click', headers: form });
    expect(answer.status).toBe(410);
    expectPageHeaders(answer, routeKey(definition));
  });

  it('the pages a member sees on the way: verified (GET and form), asked to unsubscribe, unsubscribed', async () => {
    const member: Teammate = await inviteAndAccept(service, org.apiKey, 'member');
    expect((await call(service, 'PUT', '/notifications/preferences', { apiKey: member.apiKey, body: { events: ['transaction.reconciled'] } })).status).toBe(200);
    expect((await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey })).status).toBe(202);
    const verified = await call(service, 'GET', await mailedLink(member.email, /^Verify your address/, '/notifications/verify'));
    expect(verified.status).toBe(200);
    expectPageHeaders(verified, 'GET verify');
    expect((await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey })).status).toBe(202);
    const posted = await call(service, 'POST', await mailedLink(member.email, /^Verify your address/, '/notifications/verify'), { rawBody: '', headers: form });
    expect(posted.status).toBe(200);
    expectPageHeaders(posted, 'POST verify');

    const mx = findCorridor('USDC', 'MXN', 'MX')!;
    const transactionId = `pages-${Date.now().toString(36)}`;
    const paid = await call(service, 'POST', '/transactions', {
      apiKey: org.apiKey,
      body: { idempotencyKey: transactionId, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '20.00', currency: 'USDC' }, recipientReference: 'pages', beneficiary: sampleBeneficiary(mx) },
    });
    expect(paid.status).toBe(202);
    expect((await untilSettled(service, org.apiKey, `/transactions/${transactionId}`)).state).toBe('RECONCILED');
    const unsubscribeLink = await mailedLink(member.email, new RegExp(`^Payment ${transactionId} reconciled`), '/notifications/unsubscribe');

    const asked = await call(service, 'GET', unsubscribeLink);
    expect(asked.status).toBe(200);
    expectPageHeaders(asked, 'GET unsubscribe');
    // Its form posts back to the URL the page was opened at, which form-action 'self' allows wherever the service is served.
    expect(asked.body).toContain('<form method="post">');
    const done = await call(service, 'POST', unsubscribeLink, { rawBody: 'List-Unsubscribe=One-Click', headers: form });
    expect(done.status).toBe(200);
    expectPageHeaders(done, 'POST unsubscribe');
  }, 90_000);

  it('the invitation pages: asked, accepted (the key once, with its one hashed script), already accepted', async () => {
    const email = `pages.${Date.now().toString(36)}@example.com`;
    expect((await call(service, 'POST', '/members/invitations', { apiKey: org.apiKey, body: { email, role: 'viewer' } })).status).toBe(201);
    const link = await mailedLink(email, /^Invitation to join/, '/invitations/accept');
    const asked = await call(service, 'GET', link);
    expect(asked.status).toBe(200);
    expectPageHeaders(asked, 'GET invitation');
    expect(asked.body).toContain('<form method="post">');
    const accepted = await call(service, 'POST', link, { rawBody: '', headers: form });
    expect(accepted.status).toBe(200);
    expectPageHeaders(accepted, 'POST invitation');
    expect(accepted.body).toMatch(/<script>[^<]+<\/script>/);
    expect(accepted.headers.get('content-security-policy')).toMatch(/script-src 'sha256-/);
    const again = await call(service, 'POST', link, { rawBody: '', headers: form });
    expect(again.status).toBe(410);
    expectPageHeaders(again, 'POST invitation again');
  }, 60_000);
});
