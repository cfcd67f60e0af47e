import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { readOutbox, type OutboxMessage } from '../../lib/ops/outbox.ts';
import { call, createTestOrganization, startTestService, untilSettled, type TestOrganization } from '../support/service.ts';
import { inviteAndAccept, outboxDirectory, useTemporaryOutbox, type Teammate } from '../support/team.ts';
import { runAdmin } from '../support/admin.ts';
import { eventually, until } from '../support/eventually.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { reloadConfig } from '#platform/config.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';

/**
 * E-mail notifications end to end, as a member lives them: choose events, verify the address by
 * clicking the link in the `.eml`, send a payment and find its e-mail in the outbox; unsubscribe with
 * the e-mail's one-click link; a bounce (`admin mail bounce`) stops all mail to the address until an
 * operator lifts it (`admin mail unsuppress`) and the member verifies again; removed members and other organizations' members get nothing (docs/decisions/094).
 */
let service: LocalService;
let org: TestOrganization;
let seq = 0;
const mx = findCorridor('USDC', 'MXN', 'MX')!;

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Notify Org');
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
  await creditDeposit({ organizationId: org.organizationId, depositId: `dep-notify-${Date.now()}`, amount: 100_000n * 1_000_000n, rail: 'wire', memo: 'test deposit' });
});

afterAll(async () => {
  await service?.stop();
});

const preferences = (apiKey: string) => call(service, 'GET', '/notifications/preferences', { apiKey });
const choose = (apiKey: string, events: string[]) => call(service, 'PUT', '/notifications/preferences', { apiKey, body: { events } });

async function messagesTo(email: string, subject?: RegExp): Promise<OutboxMessage[]> {
  return (await readOutbox(outboxDirectory())).filter((message) => message.to.includes(email) && (!subject || subject.test(message.subject)));
}

/** The path and query of the newest verification link e-mailed to `email`, as a person clicks it. */
async function verificationLinkTo(email: string): Promise<string> {
  const [message] = (await messagesTo(email, /^Verify your address/)).reverse();
  expect(message, `a verification e-mail to ${email}`).toBeDefined();
  const link = message!.links.find((candidate) => new URL(candidate).pathname === '/notifications/verify');
  expect(link, 'a verification link in the e-mail').toBeDefined();
  const url = new URL(link!);
  return `${url.pathname}${url.search}`;
}

async function verify(member: Teammate): Promise<void> {
  const sent = await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  const page = await call(service, 'GET', await verificationLinkTo(member.email));
  expect(page.status, page.body).toBe(200);
}

async function verifiedMember(role: string, events: string[], owner = org): Promise<Teammate> {
  const member = await inviteAndAccept(service, owner.apiKey, role);
  expect((await choose(member.apiKey, events)).status).toBe(200);
  await verify(member);
  return member;
}

/** A payment that reconciles (the sample beneficiary pays in full); answers its id once RECONCILED. */
async function reconciledPayment(owner = org): Promise<string> {
  const transactionId = `invoice-${Date.now().toString(36)}-${(seq += 1)}`;
  const accepted = await call(service, 'POST', '/transactions', {
    apiKey: owner.apiKey,
    body: { idempotencyKey: transactionId, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '250.00', currency: 'USDC' }, recipientReference: 'invoice 42', beneficiary: sampleBeneficiary(mx) },
  });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
  const settled = await untilSettled(service, owner.apiKey, `/transactions/${transactionId}`);
  expect(settled.state).toBe('RECONCILED');
  return transactionId;
}

/** Waits for the e-mail of `transactionId` to `control` (the same delivery mails every recipient), then for the bus to be idle. */
async function mailOf(control: Teammate, transactionId: string): Promise<OutboxMessage> {
  const [message] = await eventually(async () => {
    const found = await messagesTo(control.email, new RegExp(`^Payment ${transactionId} reconciled`));
    return found.length > 0 ? found : undefined;
  }, { what: `the reconciled e-mail of ${transactionId} to ${control.email}`, timeoutMs: 30_000 });
  await service.bus.idle();
  return message!;
}

const reconciledMailsTo = async (member: Teammate, transactionId: string) => messagesTo(member.email, new RegExp(`^Payment ${transactionId} reconciled`));

describe('who may call', () => {
  it('the organization key answers 409 member_required on all three endpoints', async () => {
    for (const [method, path, body] of [['GET', '/notifications/preferences'], ['PUT', '/notifications/preferences', { events: [] }], ['POST', '/notifications/verify/send']] as const) {
      const answer = await call(service, method, path, { apiKey: org.apiKey, ...(body ? { body } : {}) });
      expect(answer.status, `${method} ${path}`).toBe(409);
      expect(answer.body.error).toBe('member_required');
    }
  });

  it('a member record without an address answers 409 no_member_email (members join by e-mail; a record without one is refused, not mailed)', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'member');
    await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: keys.member(org.organizationId, member.memberId), UpdateExpression: 'REMOVE email' }));
    const answer = await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey });
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('no_member_email');
    const shown = await preferences(member.apiKey);
    expect(shown.body).not.toHaveProperty('email');
  });
});

describe('preferences', () => {
  it('starts with nothing chosen and the address unverified; the full wanted set replaces it; an empty list turns all off', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'viewer');
    const initial = await preferences(member.apiKey);
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({ events: [], emailVerified: false, verificationAvailable: true, email: member.email });
    expect(initial.body.availableEvents).toHaveLength(7);
    expect(initial.body).not.toHaveProperty('suppressionReason');

    const chosen = await choose(member.apiKey, ['onramp.delivered', 'transaction.reconciled']);
    expect(chosen.status).toBe(200);
    expect(chosen.body.events).toEqual(['transaction.reconciled', 'onramp.delivered']);
    expect((await preferences(member.apiKey)).body.events).toEqual(['transaction.reconciled', 'onramp.delivered']);
    expect((await choose(member.apiKey, ['offramp.paid'])).body.events).toEqual(['offramp.paid']);
    expect((await choose(member.apiKey, [])).body.events).toEqual([]);
  });

  it('refuses an unknown field, eight events and an unknown type with 400 validation, and changes nothing', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'member');
    await choose(member.apiKey, ['transaction.paid_out']);
    const all = ['transaction.paid_out', 'transaction.reconciled', 'transaction.refunded', 'transaction.in_doubt', 'onramp.delivered', 'onramp.refunded', 'offramp.paid'];
    for (const body of [{ events: [], email: 'x@example.com' }, { events: [...all, 'offramp.paid'] }, { events: ['transaction.funded'] }, {}]) {
      const answer = await call(service, 'PUT', '/notifications/preferences', { apiKey: member.apiKey, body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toBe('validation');
    }
    expect((await preferences(member.apiKey)).body.events).toEqual(['transaction.paid_out']);
    expect((await choose(member.apiKey, all)).body.events).toEqual(all);
  });
});

describe('verification', () => {
  it('e-mails a single-use link; a re-send replaces it; clicking it shows a page and verifies the address', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'member');
    const first = await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ sent: true, email: member.email });
    expect(Date.parse(first.body.expiresAt)).toBeGreaterThan(Date.now());
    const oldLink = await verificationLinkTo(member.email);

    const again = await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey });
    expect(again.status).toBe(202);
    const newLink = await verificationLinkTo(member.email);
    expect(newLink).not.toBe(oldLink);

    const refused = await call(service, 'GET', oldLink);
    expect(refused.status).toBe(410);
    expect(refused.headers.get('content-type')).toMatch(/^text\/html/);
    expect(refused.body).toContain('not valid');
    expect((await preferences(member.apiKey)).body.emailVerified).toBe(false);

    const verified = await call(service, 'GET', newLink);
    expect(verified.status).toBe(200);
    expect(verified.headers.get('content-type')).toMatch(/^text\/html/);
    expect(verified.body).toContain('Address verified');
    expect(verified.body).toContain(member.email);
    expect((await preferences(member.apiKey)).body.emailVerified).toBe(true);

    // Used once: a second click changes nothing and says so.
    const second = await call(service, 'GET', newLink);
    expect(second.status).toBe(200);
    expect(second.body).toContain('already verified');
  });

  it('the same link posted as a form verifies too', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'admin');
    await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey });
    const link = await verificationLinkTo(member.email);
    const wrongType = await call(service, 'POST', link, { rawBody: '{"a":1}', headers: { 'content-type': 'application/json' } });
    expect(wrongType.status).toBe(415);
    expect((await preferences(member.apiKey)).body.emailVerified).toBe(false);
    const posted = await call(service, 'POST', link, { rawBody: '', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(posted.status, posted.body).toBe(200);
    expect(posted.body).toContain('Address verified');
    expect((await preferences(member.apiKey)).body.emailVerified).toBe(true);
  });

  it('an expired link is refused with a page saying so', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'member');
    process.env.EMAIL_VERIFICATION_TTL_SECONDS = '1';
    reloadConfig();
    let expiresAt: string;
    try {
      const sent = await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey });
      expiresAt = sent.body.expiresAt;
    } finally {
      delete process.env.EMAIL_VERIFICATION_TTL_SECONDS;
      reloadConfig();
    }
    await until(async () => Date.now(), (now) => now > Date.parse(expiresAt) + 50, { what: 'the link to expire', timeoutMs: 5_000 });
    const expired = await call(service, 'GET', await verificationLinkTo(member.email));
    expect(expired.status).toBe(410);
    expect(expired.body).toContain('expired');
    expect((await preferences(member.apiKey)).body.emailVerified).toBe(false);
  });

  it('an unknown token is a page, never JSON; a missing one is 400 validation', async () => {
    const unknown = await call(service, 'GET', '/notifications/verify?token=nothing-issued-this');
    expect(unknown.status).toBe(410);
    expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);
    const missing = await call(service, 'GET', '/notifications/verify');
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('validation');
  });
});

describe('sending', () => {
  it('a verified member who chose transaction.reconciled gets exactly one readable e-mail; unverified ones and other choices get none', async () => {
    const verified = await verifiedMember('viewer', ['transaction.reconciled']);
    const unverified = await inviteAndAccept(service, org.apiKey, 'member');
    await choose(unverified.apiKey, ['transaction.reconciled']);
    await call(service, 'POST', '/notifications/verify/send', { apiKey: unverified.apiKey });
    const otherChoice = await verifiedMember('member', ['transaction.refunded']);

    const transactionId = await reconciledPayment();
    const message = await mailOf(verified, transactionId);
    expect(await reconciledMailsTo(verified, transactionId)).toHaveLength(1);
    expect(await reconciledMailsTo(unverified, transactionId)).toHaveLength(0);
    expect(await messagesTo(otherChoice.email, new RegExp(transactionId))).toHaveLength(0);

    // What happened, the figures as money with currency, the operation id; plain text and HTML.
    const { body: payment } = await call(service, 'GET', `/transactions/${transactionId}`, { apiKey: org.apiKey });
    const paid = BigInt(payment.receiveAmount.amount);
    const shown = `${(paid / 100n).toLocaleString('en-US')}.${String(paid % 100n).padStart(2, '0')} MXN`;
    expect(message.subject).toBe(`Payment ${transactionId} reconciled: ${shown} paid`);
    expect(message.text).toContain(`Operation id: ${transactionId}`);
    expect(message.text).toContain(`Paid to the recipient: ${shown}`);
    expect(message.html).toContain(transactionId);
    expect(message.text).not.toMatch(/\d{8,}/);
    // RFC 8058 one-click unsubscribe.
    expect(message.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(message.headers['list-unsubscribe']).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/notifications\/unsubscribe\?token=[^>]+>$/);
  });

  it("the e-mail's one-click unsubscribe removes that event type; its GET only asks", async () => {
    const member = await verifiedMember('member', ['transaction.reconciled', 'transaction.refunded']);
    const transactionId = await reconciledPayment();
    const message = await mailOf(member, transactionId);
    const link = new URL(message.headers['list-unsubscribe']!.slice(1, -1));
    const path = `${link.pathname}${link.search}`;

    const asked = await call(service, 'GET', path);
    expect(asked.status).toBe(200);
    expect(asked.body).toContain('<form method="post"');
    // The form has no action: a browser posts it back to the address the page was opened at, whatever
    // that is (the stage's public address, a custom domain), never a configured one.
    expect(asked.body).toMatch(/<form method="post">/);
    expect(asked.body).not.toMatch(/<form[^>]* action=/);
    expect((await preferences(member.apiKey)).body.events).toEqual(['transaction.reconciled', 'transaction.refunded']);

    const forged = await call(service, 'POST', `${path.slice(0, -3)}abc`, { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(forged.status).toBe(410);
    const notOneClick = await call(service, 'POST', path, { rawBody: 'other=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(notOneClick.status).toBe(400);
    expect((await preferences(member.apiKey)).body.events).toEqual(['transaction.reconciled', 'transaction.refunded']);

    const done = await call(service, 'POST', path, { rawBody: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(done.status, done.body).toBe(200);
    expect(done.body).toContain('transaction.reconciled');
    expect((await preferences(member.apiKey)).body.events).toEqual(['transaction.refunded']);

    const control = await verifiedMember('viewer', ['transaction.reconciled']);
    const next = await reconciledPayment();
    await mailOf(control, next);
    expect(await reconciledMailsTo(member, next)).toHaveLength(0);
  });

  it('a bounce (admin mail bounce) suppresses the address: nothing, not even a verification, is attempted until an operator lifts it and the member verifies', async () => {
    const member = await verifiedMember('member', ['transaction.reconciled']);
    const control = await verifiedMember('viewer', ['transaction.reconciled']);
    const bounced = await runAdmin(['mail', 'bounce', member.email.toUpperCase()], { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });
    expect(bounced.status, bounced.stderr).toBe(0);
    expect(JSON.parse(bounced.stdout)).toMatchObject({ email: member.email.toLowerCase(), source: 'operator' });

    const suppressed = (await preferences(member.apiKey)).body;
    expect(suppressed).toMatchObject({ emailVerified: false, suppressionReason: expect.stringContaining('bounce') });
    expect(Date.parse(suppressed.suppressedAt)).toBeGreaterThan(0);

    const quiet = await reconciledPayment();
    await mailOf(control, quiet);
    expect(await reconciledMailsTo(member, quiet)).toHaveLength(0);

    // Another e-mail to an address that bounced is not the way out (docs/decisions/109): not attempted.
    const before = (await messagesTo(member.email)).length;
    const notSent = await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey });
    expect(notSent.status).toBe(202);
    expect(notSent.body).toMatchObject({ sent: false, email: member.email, reason: expect.stringContaining('suppression list') });
    expect(await messagesTo(member.email)).toHaveLength(before);

    const lifted = await runAdmin(['mail', 'unsuppress', member.email], { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });
    expect(lifted.status, lifted.stderr).toBe(0);
    expect(JSON.parse(lifted.stdout)).toMatchObject({ email: member.email.toLowerCase(), lifted: true });
    await verify(member);
    const verifiedAgain = (await preferences(member.apiKey)).body;
    expect(verifiedAgain.emailVerified).toBe(true);
    expect(verifiedAgain).not.toHaveProperty('suppressionReason');
    const heard = await reconciledPayment();
    await mailOf(control, heard);
    expect(await reconciledMailsTo(member, heard)).toHaveLength(1);
  });

  it('a member removed from the team gets no more e-mail, and another organization never gets this one\'s', async () => {
    const leaving = await verifiedMember('member', ['transaction.reconciled']);
    const control = await verifiedMember('admin', ['transaction.reconciled']);
    const other = await createTestOrganization(service, 'approved', 'Other Notify Org');
    await setRateLimits(other.organizationId, { burst: 100_000, perSecond: 10_000 });
    const outsider = await verifiedMember('member', ['transaction.reconciled'], other);

    const removed = await call(service, 'DELETE', `/members/${leaving.memberId}`, { apiKey: org.apiKey });
    expect(removed.status).toBe(200);
    const transactionId = await reconciledPayment();
    await mailOf(control, transactionId);
    expect(await reconciledMailsTo(leaving, transactionId)).toHaveLength(0);
    expect(await messagesTo(outsider.email, /^Payment /)).toHaveLength(0);
  });
});
