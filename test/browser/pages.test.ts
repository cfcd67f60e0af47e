import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { accessibilityFindings, launchBrowser, screenshotPath, watchPage, type PageWatch } from '../support/browser.ts';
import { eventually } from '../support/eventually.ts';
import { call, createTestOrganization, startTestService, untilSettled, type TestOrganization } from '../support/service.ts';
import { inviteAndAccept, mailedLink, uniqueEmail, useTemporaryOutbox } from '../support/team.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';

/**
 * Every page the service serves, opened in headless Chromium as the person it is for opens it: from
 * the link in the e-mail (the .eml in the outbox), by clicking. Each page is held to the same things:
 * its Content-Security-Policy blocks nothing the page needs (no violation reported), no request
 * leaves the service, no script error, and axe-core finds no serious or critical accessibility
 * violation. Screenshots go to test-results/screenshots (`npm run screenshots` refreshes the ones
 * the README shows, in docs/screenshots).
 */
let service: LocalService;
let org: TestOrganization;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Browser Pages Org');
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
  await creditDeposit({ organizationId: org.organizationId, depositId: `dep-browser-${Date.now()}`, amount: 10_000n * 1_000_000n, rail: 'wire', memo: 'test deposit' });
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1000, height: 720 } });
}, 120_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await service?.stop();
});

/** The page is clean: nothing blocked, nothing foreign, no error, nothing serious for axe. */
async function expectCleanPage(watch: PageWatch, what: string, axeInclude: readonly string[] = []) {
  expect(await watch.violations(), `${what}: CSP violations`).toEqual([]);
  expect(watch.foreignRequests, `${what}: requests that left the service`).toEqual([]);
  expect(watch.errors, `${what}: script and console errors`).toEqual([]);
  expect(await accessibilityFindings(watch.page, axeInclude), `${what}: axe-core serious/critical`).toEqual([]);
}

/** The e-mailed link to `pathname`, at the test service's own address. */
const linkIn = async (email: string, subject: RegExp, pathname: string) => `${service.url}${await mailedLink(email, subject, pathname)}`;

describe('the watch itself', () => {
  it('sees a blocked inline script, a blocked image and a script error (so a clean page is a finding, not a blind spot)', async () => {
    const watch = await watchPage(context, service.url);
    await watch.page.route(`${service.url}/watch-check`, (route) => route.fulfill({
      status: 200,
      headers: { 'content-type': 'text/html', 'content-security-policy': "default-src 'none'; script-src 'sha256-3ZU30BpJoBqryfsGbrhe7HQeGGTC62xGPAd9Ohw+qy4='" },
      // The hash admits the second script only: it throws, and the first is blocked.
      body: '<!doctype html><html lang="en"><title>t</title><img src="https://example.com/x.png" alt="x"><script>document.title = "ran"</script><script>throw new Error("boom")</script></html>',
    }));
    await watch.page.goto(`${service.url}/watch-check`);
    await expect.poll(watch.violations).toEqual(expect.arrayContaining([expect.stringMatching(/^img-src https:\/\/example\.com/), expect.stringMatching(/^script-src-elem inline/)]));
    expect(await watch.page.title()).toBe('t');
    expect(watch.errors.join('\n')).toMatch(/boom/);
    await watch.page.close();
  }, 60_000);
});

describe('the pages e-mailed links open, in Chromium', () => {
  it('verification: the link verifies and says so', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'member');
    expect((await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey })).status).toBe(202);
    const watch = await watchPage(context, service.url);
    const answer = await watch.page.goto(await linkIn(member.email, /^Verify your address/, '/notifications/verify'));
    expect(answer?.status()).toBe(200);
    await expect.poll(() => watch.page.getByRole('heading', { level: 1 }).textContent()).toMatch(/verified/i);
    await expectCleanPage(watch, 'verification page');
    await watch.page.screenshot({ path: screenshotPath('verify-email'), fullPage: true });
    await watch.page.close();
  }, 90_000);

  it('unsubscribe: a GET asks, the button unsubscribes', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'member');
    // Only a verified address is e-mailed about payments.
    expect((await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey })).status).toBe(202);
    expect((await fetch(await linkIn(member.email, /^Verify your address/, '/notifications/verify'))).status).toBe(200);
    expect((await call(service, 'PUT', '/notifications/preferences', { apiKey: member.apiKey, body: { events: ['transaction.reconciled'] } })).status).toBe(200);
    const mx = findCorridor('USDC', 'MXN', 'MX')!;
    const transactionId = `browser-${Date.now().toString(36)}`;
    const paid = await call(service, 'POST', '/transactions', {
      apiKey: org.apiKey,
      body: { idempotencyKey: transactionId, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '20.00', currency: 'USDC' }, recipientReference: 'browser', beneficiary: sampleBeneficiary(mx) },
    });
    expect(paid.status).toBe(202);
    expect((await untilSettled(service, org.apiKey, `/transactions/${transactionId}`)).state).toBe('RECONCILED');
    const link = await linkIn(member.email, new RegExp(`^Payment ${transactionId} reconciled`), '/notifications/unsubscribe');

    const watch = await watchPage(context, service.url);
    await watch.page.goto(link);
    await expectCleanPage(watch, 'unsubscribe page');
    await watch.page.screenshot({ path: screenshotPath('unsubscribe-ask'), fullPage: true });
    // The GET changed nothing: the member still receives the event.
    expect((await call(service, 'GET', '/notifications/preferences', { apiKey: member.apiKey })).body.events).toContain('transaction.reconciled');

    await Promise.all([watch.page.waitForLoadState('load'), watch.page.getByRole('button', { name: /unsubscribe/i }).click()]);
    await expect.poll(() => watch.page.getByRole('heading', { level: 1 }).textContent()).toMatch(/unsubscribed/i);
    await expectCleanPage(watch, 'unsubscribed page');
    await watch.page.screenshot({ path: screenshotPath('unsubscribe-done'), fullPage: true });
    expect((await call(service, 'GET', '/notifications/preferences', { apiKey: member.apiKey })).body.events).not.toContain('transaction.reconciled');
    await watch.page.close();
  }, 120_000);

  it('a link nobody issued: a page saying so, as clean as the others', async () => {
    const watch = await watchPage(context, service.url);
    const answer = await watch.page.goto(`${service.url}/notifications/unsubscribe?token=nothing-issued-this`);
    expect(answer?.status()).toBe(410);
    await expectCleanPage(watch, 'invalid link page');
    await watch.page.close();
  }, 60_000);
});

describe('the API reference', () => {
  it('/docs renders the whole contract from the service alone: every operation and webhook in the menu, search working', async () => {
    const document = (await (await fetch(`${service.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>>; webhooks: Record<string, unknown> };
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item)).length;
    const webhooks = Object.keys(document.webhooks).length;
    const watch = await watchPage(context, service.url);
    await watch.page.setViewportSize({ width: 1280, height: 900 });
    expect((await watch.page.goto(`${service.url}/docs`))?.status()).toBe(200);
    // Redoc lists each operation (and webhook) in its menu once it has read the document.
    await expect.poll(() => watch.page.locator('li[data-item-id*="operation/"]').count(), { timeout: 30_000 }).toBe(operations + webhooks);
    await expect.poll(() => watch.page.locator('h1').first().textContent()).toMatch(/Cross-border payments/);
    // Redoc renders every operation with the same components (about 32,000 elements in all, which
    // axe takes minutes over): it checks the menu, the conventions, the payment operation (a body,
    // examples, every kind of answer) and a webhook, with a tag and an operation opened in the menu.
    await watch.page.locator('li[data-item-id="tag/payments"] > label').first().click();
    await watch.page.locator('li[data-item-id="tag/payments/operation/createTransaction"] > label').first().click();
    await expect.poll(() => watch.page.locator('li[data-item-id="tag/payments"] > label').first().getAttribute('aria-expanded')).toBe('true');
    await expectCleanPage(watch, 'reference page', [
      '.scrollbar-container',
      '[data-section-id^="section/"]',
      '[data-section-id="tag/payments/operation/createTransaction"]',
      '[data-section-id="tag/webhooks/operation/transactionEvent"]',
    ]);
    await watch.page.screenshot({ path: screenshotPath('reference') });
    // Search runs in a worker the script starts from a blob (worker-src blob:).
    const results = watch.page.locator('[data-role="search:results"] li');
    expect(await results.count()).toBe(0);
    await watch.page.getByPlaceholder(/search/i).fill('idempotency');
    await expect.poll(() => results.count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await watch.violations(), 'reference page search: CSP violations').toEqual([]);
    expect(watch.errors, 'reference page search: errors').toEqual([]);
    await watch.page.close();
  }, 120_000);
});

describe('the invitation, from the e-mail to the key', () => {
  it('opened from the .eml link, accepted by clicking, the key shown once and working; the link then says it was used', async () => {
    const email = uniqueEmail('browser');
    const invited = await call(service, 'POST', '/members/invitations', { apiKey: org.apiKey, body: { email, role: 'admin', name: 'Ana Browser' } });
    expect(invited.status).toBe(201);
    const link = await linkIn(email, /^Invitation to join/, '/invitations/accept');

    const watch = await watchPage(context, service.url);
    expect((await watch.page.goto(link))?.status()).toBe(200);
    await expect.poll(() => watch.page.getByRole('heading', { level: 1 }).textContent()).toMatch(/join/i);
    const asked = await watch.page.locator('main').textContent();
    expect(asked).toContain('Browser Pages Org');
    expect(asked).toContain('admin');
    expect(asked).toMatch(/Invited by\s*the organization's administrator/);
    await expectCleanPage(watch, 'invitation page');
    await watch.page.screenshot({ path: screenshotPath('invitation'), fullPage: true });

    await Promise.all([watch.page.waitForLoadState('load'), watch.page.getByRole('button', { name: /accept/i }).click()]);
    await expect.poll(() => watch.page.getByRole('heading', { level: 1 }).textContent()).toMatch(/accepted/i);
    const key = await watch.page.getByLabel('Your API key').inputValue();
    expect(key).toMatch(/^sk_sim_/);
    expect(await watch.page.locator('main').textContent()).toMatch(/will not be shown again/);
    // The hashed script ran: the Copy button is shown, and it copies.
    const copy = watch.page.locator('button[data-copy]');
    await watch.page.getByRole('button', { name: /copy/i }).click();
    await expect.poll(() => copy.textContent()).toBe('Copied');
    await expectCleanPage(watch, 'invitation accepted page');
    await watch.page.screenshot({ path: screenshotPath('invitation-accepted'), fullPage: true });
    const me = await call(service, 'GET', '/me', { apiKey: key });
    expect(me.status).toBe(200);

    // The same link again: spent, and the page says so.
    expect((await watch.page.goto(link))?.status()).toBe(410);
    await expect.poll(() => watch.page.getByRole('heading', { level: 1 }).textContent()).toMatch(/already accepted/i);
    await expectCleanPage(watch, 'invitation used page');
    await watch.page.close();
  }, 90_000);

  it('a link replaced by a re-send, one withdrawn, and one never issued: each a page that says which, as clean as the others', async () => {
    const email = uniqueEmail('browser');
    const invited = await call(service, 'POST', '/members/invitations', { apiKey: org.apiKey, body: { email, role: 'viewer' } });
    expect(invited.status).toBe(201);
    const first = await linkIn(email, /^Invitation to join/, '/invitations/accept');
    expect((await call(service, 'POST', `/members/${invited.body.member.id}/invitations`, { apiKey: org.apiKey })).status).toBe(200);
    const second = await eventually(async () => {
      const link = await linkIn(email, /^Invitation to join/, '/invitations/accept');
      return link === first ? undefined : link;
    }, { what: 'the re-sent invitation', timeoutMs: 30_000 });
    expect((await call(service, 'DELETE', `/members/${invited.body.member.id}`, { apiKey: org.apiKey })).status).toBe(200);

    const watch = await watchPage(context, service.url);
    for (const [link, heading, name] of [
      [first, /newer invitation/i, 'invitation-replaced'],
      [second, /withdrawn/i, 'invitation-withdrawn'],
      [`${service.url}/invitations/accept?token=never-issued-this-token`, /not valid/i, 'invitation-unknown'],
    ] as const) {
      expect((await watch.page.goto(link))?.status(), name).toBe(410);
      await expect.poll(() => watch.page.getByRole('heading', { level: 1 }).textContent()).toMatch(heading);
      await expectCleanPage(watch, name);
    }
    await watch.page.close();
  }, 90_000);
});
