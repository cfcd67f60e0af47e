import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { invitationMail, inviteAndAccept, outboxDirectory, uniqueEmail, useTemporaryOutbox, type Teammate } from '../support/team.ts';
import { readOutbox } from '../../lib/ops/outbox.ts';
import { hashInvitationToken } from '#domain/team.ts';
import { reloadConfig } from '#platform/config.ts';
import { batchPutAll, dynamo, tableName } from '#store/client.ts';
import { memberEntity } from '#store/members.ts';
import { ulid } from 'ulid';
import { keys } from '#store/keys.ts';
import { listApiKeys, setRateLimit } from '#store/organizations.ts';
import { routes, routeKey } from '#contract/routes.ts';
import { AcceptedInvitation, InvitationResult, MemberList, RemovedMember, RotatedMemberKey, RotatedOrganizationKey, UpdatedMember } from '#schemas/team.ts';
import { runAdmin } from '../support/admin.ts';

/**
 * The team as a new user meets it, over HTTP against the whole local service: invite a teammate,
 * read the e-mail in the outbox, accept it, use the member key within its role and be refused
 * above it, change and remove members, rotate keys and see the old ones die.
 */

let service: LocalService;
let org: TestOrganization;
let admin: Teammate;

const quote = { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.00', currency: 'USDC' } };

async function roomy(organization: TestOrganization): Promise<TestOrganization> {
  await setRateLimit(organization.organizationId, 'write', { burst: 1000, perSecond: 200 });
  await setRateLimit(organization.organizationId, 'read', { burst: 1000, perSecond: 200 });
  return organization;
}

async function invite(apiKey: string, body: Record<string, unknown>) {
  return call(service, 'POST', '/members/invitations', { apiKey, body });
}

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await roomy(await createTestOrganization(service, 'approved', 'Team Org'));
  admin = await inviteAndAccept(service, org.apiKey, 'admin');
});

afterAll(async () => {
  await service?.stop();
});

describe('an invitation, as a person receives it', () => {
  it('invite, read the e-mail in the outbox, accept, and work as the member', async () => {
    const email = uniqueEmail('Ana');
    const invited = await invite(org.apiKey, { email, name: 'Ana Lima', role: 'member' });
    expect(invited.status).toBe(201);
    expect(InvitationResult.parse(invited.body)).toEqual(invited.body);
    expect(invited.body).toEqual({
      emailDelivered: true,
      member: {
        id: expect.stringMatching(/^mem_/),
        email,
        name: 'Ana Lima',
        role: 'member',
        status: 'invited',
        invitedAt: expect.any(String),
        acceptedAt: null,
        createdAt: expect.any(String),
      },
    });

    // The e-mail: an RFC 5322 message in the outbox, read as a mail client reads it.
    const { message, token } = await invitationMail(email);
    const raw = readFileSync(message.file, 'utf8');
    for (const header of ['From:', 'To:', 'Subject:', 'Date:', 'Message-ID:', 'MIME-Version: 1.0']) expect(raw).toContain(header);
    expect(raw).toContain('\r\n');
    expect(message.to).toEqual([email]);
    expect(message.subject).toBe('Invitation to join Team Org');
    expect(message.text).toContain('as member');
    const link = message.links.find((candidate) => candidate.includes('/invitations/accept'))!;
    expect(link.startsWith(`${service.url}/invitations/accept?token=`)).toBe(true);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Stored only as its hash: the token item is found by the hash and carries no token.
    const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.invitation(hashInvitationToken(token)) }));
    expect(stored.Item).toMatchObject({ memberId: invited.body.member.id, organizationId: org.organizationId });
    expect(JSON.stringify(stored.Item)).not.toContain(token);

    const accepted = await call(service, 'POST', '/invitations/accept', { body: { token } });
    expect(accepted.status).toBe(200);
    expect(AcceptedInvitation.parse(accepted.body)).toEqual(accepted.body);
    expect(accepted.body.apiKey).toMatch(/^sk_sim_/);
    expect(accepted.body.member).toMatchObject({ id: invited.body.member.id, status: 'active', role: 'member', acceptedAt: expect.any(String) });
    const memberKey = accepted.body.apiKey as string;

    // Used once: the same link again is refused.
    const again = await call(service, 'POST', '/invitations/accept', { body: { token } });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ error: 'invalid_invite', message: expect.any(String) });

    // Who am I: the organization, the role, the member and the person.
    const me = await call(service, 'GET', '/me', { apiKey: memberKey });
    expect(me.body).toEqual({
      id: org.organizationId,
      name: 'Team Org',
      role: 'member',
      memberId: invited.body.member.id,
      actor: { name: 'Ana Lima', email },
    });

    // Within the role: pricing a payment. Above it: reading or growing the team.
    expect((await call(service, 'POST', '/quotes', { apiKey: memberKey, body: quote })).status).toBe(200);
    for (const [method, route, body] of [
      ['GET', '/members', undefined],
      ['POST', '/members/invitations', { email: uniqueEmail(), role: 'viewer' }],
      ['PATCH', `/members/${admin.memberId}`, { role: 'viewer' }],
      ['DELETE', `/members/${admin.memberId}`, undefined],
      ['POST', '/api-keys/rotate', undefined],
    ] as const) {
      const refused = await call(service, method, route, { apiKey: memberKey, ...(body ? { body } : {}) });
      expect(refused.status, `${method} ${route}`).toBe(403);
      expect(refused.body).toEqual({ error: 'forbidden', message: expect.any(String) });
    }

    // The team as the owner sees it.
    const team = await call(service, 'GET', '/members', { apiKey: org.apiKey });
    expect(team.status).toBe(200);
    expect(MemberList.parse(team.body)).toEqual(team.body);
    expect(team.body.count).toBe(team.body.members.length);
    expect(team.body.members).toContainEqual(accepted.body.member);
  });

  it('a viewer reads but cannot initiate', async () => {
    const viewer = await inviteAndAccept(service, org.apiKey, 'viewer');
    expect((await call(service, 'GET', '/balance', { apiKey: viewer.apiKey })).status).toBe(200);
    const refused = await call(service, 'POST', '/quotes', { apiKey: viewer.apiKey, body: quote });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden');
  });

  it('re-sending issues a fresh link: the old token is refused, the new one works', async () => {
    const email = uniqueEmail('resend');
    const invited = await invite(org.apiKey, { email, role: 'viewer' });
    const { token: first } = await invitationMail(email);
    const before = (await readOutbox(outboxDirectory())).length;

    const resent = await call(service, 'POST', `/members/${invited.body.member.id}/invitations`, { apiKey: org.apiKey });
    expect(resent.status).toBe(200);
    expect(InvitationResult.parse(resent.body)).toEqual(resent.body);
    expect(resent.body).toMatchObject({ emailDelivered: true, member: { id: invited.body.member.id, status: 'invited' } });
    expect((await readOutbox(outboxDirectory())).length).toBe(before + 1);
    const { token: second } = await invitationMail(email);
    expect(second).not.toBe(first);

    const old = await call(service, 'POST', '/invitations/accept', { body: { token: first } });
    expect(old.status).toBe(400);
    expect(old.body.error).toBe('invalid_invite');
    const fresh = await call(service, 'POST', '/invitations/accept', { body: { token: second } });
    expect(fresh.status).toBe(200);

    // Accepted: there is nothing left to re-send.
    const done = await call(service, 'POST', `/members/${invited.body.member.id}/invitations`, { apiKey: org.apiKey });
    expect(done.status).toBe(409);
    expect(done.body.error).toBe('conflict');
    const missing = await call(service, 'POST', '/members/mem_01JDZZZZZZZZZZZZZZZZZZZZZZ/invitations', { apiKey: org.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'not_found', message: expect.any(String) });
  });

  it('expired and forged tokens are 400 invalid_invite', async () => {
    const email = uniqueEmail('late');
    await invite(org.apiKey, { email, role: 'viewer' });
    const { token } = await invitationMail(email);
    // Seven days pass (the token item's own expiry; DynamoDB's TTL would delete it some time later).
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.invitation(hashInvitationToken(token)),
        UpdateExpression: 'SET expiresAt = :past',
        ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
      }),
    );
    const expired = await call(service, 'POST', '/invitations/accept', { body: { token } });
    expect(expired.status).toBe(400);
    expect(expired.body).toEqual({ error: 'invalid_invite', message: expect.any(String) });

    for (const forged of [`${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, 'x', 'A'.repeat(200), org.apiKey]) {
      const refused = await call(service, 'POST', '/invitations/accept', { body: { token: forged } });
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ error: 'invalid_invite', message: expect.any(String) });
    }
  });

  it('20 concurrent accepts of one token issue exactly one key', async () => {
    const email = uniqueEmail('race');
    const invited = await invite(org.apiKey, { email, role: 'member' });
    const { token } = await invitationMail(email);
    const answers = await Promise.all(Array.from({ length: 20 }, () => call(service, 'POST', '/invitations/accept', { body: { token } })));
    const winners = answers.filter((answer) => answer.status === 200);
    expect(winners).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 400 && answer.body.error === 'invalid_invite')).toHaveLength(19);
    const memberKeys = (await listApiKeys(org.organizationId)).filter((entry) => entry.memberId === invited.body.member.id);
    expect(memberKeys).toHaveLength(1);
    expect((await call(service, 'GET', '/me', { apiKey: winners[0]!.body.apiKey })).body.memberId).toBe(invited.body.member.id);
  });

  it('requests of the organization running while keys change around them are never refused or failed', async () => {
    const emails = Array.from({ length: 8 }, () => uniqueEmail('busy'));
    for (const email of emails) expect((await invite(org.apiKey, { email, role: 'viewer' })).status).toBe(201);
    const tokens = await Promise.all(emails.map(async (email) => (await invitationMail(email)).token));
    // Each accept is a transaction over the member and its new key item while every GET /me charges the organization's bucket.
    const [accepts, reads] = await Promise.all([
      Promise.all(tokens.map((token) => call(service, 'POST', '/invitations/accept', { body: { token } }))),
      Promise.all(Array.from({ length: 40 }, () => call(service, 'GET', '/me', { apiKey: org.apiKey }))),
    ]);
    expect(accepts.map((answer) => answer.status)).toEqual(Array(8).fill(200));
    expect(reads.map((answer) => answer.status)).toEqual(Array(40).fill(200));
  });

  it('the e-mail not going out is said, and the invitation stands to be re-sent', async () => {
    const blocked = path.join(outboxDirectory(), 'not-a-folder');
    writeFileSync(blocked, 'a file where the outbox folder should be');
    const saved = process.env.MAIL_OUTBOX_DIR;
    process.env.MAIL_OUTBOX_DIR = path.join(blocked, 'outbox');
    reloadConfig();
    const email = uniqueEmail('bounce');
    let invited;
    try {
      invited = await invite(org.apiKey, { email, role: 'viewer' });
    } finally {
      process.env.MAIL_OUTBOX_DIR = saved;
      reloadConfig();
    }
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ emailDelivered: false, emailError: expect.any(String), member: { status: 'invited' } });
    const resent = await call(service, 'POST', `/members/${invited.body.member.id}/invitations`, { apiKey: org.apiKey });
    expect(resent.body.emailDelivered).toBe(true);
    expect(resent.body.emailError).toBeUndefined();
    const { token } = await invitationMail(email);
    expect((await call(service, 'POST', '/invitations/accept', { body: { token } })).status).toBe(200);
  });
});

describe('the invitation page, as a person clicks the e-mailed link (docs/decisions/112)', () => {
  const form = { 'content-type': 'application/x-www-form-urlencoded' };
  /** The link of the newest invitation e-mail to `email`, as a path with its query. */
  async function linkTo(email: string): Promise<{ link: string; token: string }> {
    const { message, token } = await invitationMail(email);
    const link = new URL(message.links.find((candidate) => new URL(candidate).pathname === '/invitations/accept')!);
    return { link: `${link.pathname}${link.search}`, token };
  }
  const keyShown = (page: string) => /<input type="text" id="api-key" name="api-key" value="([^"]+)" readonly/.exec(page)?.[1];
  const titleOf = (page: string) => /<h1>([^<]*)<\/h1>/.exec(page)?.[1];

  it('GET names the organization, the role and who invited, and spends nothing: GET twice, then the button accepts and shows the key once', async () => {
    const email = uniqueEmail('page');
    const invited = await invite(admin.apiKey, { email, role: 'viewer', name: 'Page Person' });
    expect(invited.status).toBe(201);
    const { link } = await linkTo(email);
    for (let look = 0; look < 2; look += 1) {
      const shown = await call(service, 'GET', link);
      expect(shown.status).toBe(200);
      expect(titleOf(shown.body)).toBe('Join the team');
      expect(shown.body).toContain('<dt>Organization</dt><dd>&#34;Team Org&#34;</dd>');
      expect(shown.body).toContain('<dt>Role</dt><dd>viewer</dd>');
      expect(shown.body).toContain(`<dt>Invited by</dt><dd>&#34;A admin&#34; (${admin.email})</dd>`);
      expect(shown.body).toContain(`<dt>Invitation for</dt><dd>${email}</dd>`);
      // One button, posting back to this very address: no action, so no absolute URL.
      expect(shown.body).toContain('<form method="post"><button type="submit">Accept the invitation</button></form>');
      expect(shown.body).not.toMatch(/action=/);
    }
    expect((await call(service, 'GET', '/members', { apiKey: org.apiKey })).body.members.find((m: { id: string }) => m.id === invited.body.member.id).status).toBe('invited');

    const accepted = await call(service, 'POST', link, { rawBody: '', headers: form });
    expect(accepted.status).toBe(200);
    expect(titleOf(accepted.body)).toBe('Invitation accepted');
    const apiKey = keyShown(accepted.body)!;
    expect(apiKey).toMatch(/^sk_sim_/);
    expect(accepted.body).toContain('<label for="api-key">Your API key</label>');
    expect(accepted.body).toContain('data-copy="api-key" hidden>Copy the key</button>');
    expect(accepted.body).toContain('This key will not be shown again.');
    expect(accepted.body).toContain(`curl -H "Authorization: Bearer ${apiKey}" <span data-origin>${service.url}</span>/me`);
    const me = await call(service, 'GET', '/me', { apiKey });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ role: 'viewer', memberId: invited.body.member.id, actor: { name: 'Page Person', email } });

    // Once: the same button again, and the link, say it was used; the JSON API says so in its message.
    const again = await call(service, 'POST', link, { rawBody: '', headers: form });
    expect(again.status).toBe(410);
    expect(titleOf(again.body)).toBe('Invitation already accepted');
    expect(keyShown(again.body)).toBeUndefined();
    expect(again.body).not.toContain(apiKey);
    expect(titleOf((await call(service, 'GET', link)).body)).toBe('Invitation already accepted');
    const json = await call(service, 'POST', '/invitations/accept', { body: { token: new URLSearchParams(link.split('?')[1]).get('token') } });
    expect(json.status).toBe(400);
    expect(json.body).toEqual({ error: 'invalid_invite', message: expect.stringContaining('already accepted') });
  });

  it('the organization key invites as the organization\'s administrator; the token may come as a form field too', async () => {
    const email = uniqueEmail('field');
    await invite(org.apiKey, { email, role: 'member' });
    const { token } = await linkTo(email);
    const shown = await call(service, 'GET', `/invitations/accept?token=${encodeURIComponent(token)}`);
    expect(shown.body).toContain("<dt>Invited by</dt><dd>the organization&#39;s administrator (with the organization key)</dd>");
    const accepted = await call(service, 'POST', '/invitations/accept', { rawBody: new URLSearchParams({ token }).toString(), headers: form });
    expect(accepted.status).toBe(200);
    expect((await call(service, 'GET', '/me', { apiKey: keyShown(accepted.body)! })).body.role).toBe('member');
  });

  it('rescinded: the withdrawn page; re-sent: the old link says a newer one was sent, the new one works', async () => {
    const email = uniqueEmail('withdrawn');
    const pending = await invite(org.apiKey, { email, role: 'viewer' });
    const { link: rescindedLink } = await linkTo(email);
    expect((await call(service, 'DELETE', `/members/${pending.body.member.id}`, { apiKey: org.apiKey })).body.rescinded).toBe(true);
    for (const answer of [await call(service, 'GET', rescindedLink), await call(service, 'POST', rescindedLink, { rawBody: '', headers: form })]) {
      expect(answer.status).toBe(410);
      expect(titleOf(answer.body)).toBe('Invitation withdrawn');
      expect(answer.body).toContain('withdrawn by &#34;Team Org&#34;');
      expect(answer.body).toContain('ask an admin of the organization for a new invitation');
    }

    const resentEmail = uniqueEmail('resent');
    const invited = await invite(org.apiKey, { email: resentEmail, role: 'viewer' });
    const { link: first } = await linkTo(resentEmail);
    expect((await call(service, 'POST', `/members/${invited.body.member.id}/invitations`, { apiKey: admin.apiKey })).status).toBe(200);
    const { link: second } = await linkTo(resentEmail);
    expect(second).not.toBe(first);
    for (const answer of [await call(service, 'GET', first), await call(service, 'POST', first, { rawBody: '', headers: form })]) {
      expect(answer.status).toBe(410);
      expect(titleOf(answer.body)).toBe('A newer invitation was sent');
      expect(answer.body).toContain('open the link in the newest invitation e-mail');
    }
    // The re-send is in the name of who sent it.
    expect((await call(service, 'GET', second)).body).toContain(`(${admin.email})</dd>`);
    expect((await call(service, 'POST', second, { rawBody: '', headers: form })).status).toBe(200);
  });

  it('expired: the expired page, saying to ask for a re-send', async () => {
    const email = uniqueEmail('expired');
    await invite(org.apiKey, { email, role: 'viewer' });
    const { link, token } = await linkTo(email);
    await dynamo().send(new UpdateCommand({
      TableName: tableName(),
      Key: keys.invitation(hashInvitationToken(token)),
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
    }));
    for (const answer of [await call(service, 'GET', link), await call(service, 'POST', link, { rawBody: '', headers: form })]) {
      expect(answer.status).toBe(410);
      expect(titleOf(answer.body)).toBe('Invitation expired');
      expect(answer.body).toContain('ask an admin of &#34;Team Org&#34; to invite you again');
    }
    expect((await call(service, 'POST', '/invitations/accept', { body: { token } })).body.message).toContain('expired');
  });

  it('forged and hostile tokens: the unknown page (410) or the contract\'s 400, escaped, never a 500', async () => {
    for (const forged of ['x', 'A'.repeat(43), 'zażółć-€-𝄞-名前', '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '%00%ff', org.apiKey]) {
      for (const answer of [
        await call(service, 'GET', `/invitations/accept?token=${encodeURIComponent(forged)}`),
        await call(service, 'POST', `/invitations/accept?token=${encodeURIComponent(forged)}`, { rawBody: '', headers: form }),
        await call(service, 'POST', '/invitations/accept', { rawBody: new URLSearchParams({ token: forged }).toString(), headers: form }),
      ]) {
        expect(answer.status, forged).toBe(410);
        expect(titleOf(answer.body), forged).toBe('Invitation link not valid');
        expect(answer.body).not.toMatch(/<script>alert|<img/);
      }
    }
    const long = 'L'.repeat(5_000);
    for (const answer of [
      await call(service, 'GET', `/invitations/accept?token=${long}`),
      await call(service, 'GET', '/invitations/accept'),
      await call(service, 'GET', '/invitations/accept?token='),
      await call(service, 'POST', `/invitations/accept?token=${long}`, { rawBody: '', headers: form }),
      await call(service, 'POST', '/invitations/accept', { rawBody: `token=${long}`, headers: form }),
    ]) {
      expect(answer.status).toBe(400);
      expect(answer.body).toMatchObject({ error: 'validation' });
    }
    // A form with no token at all is a link that names none.
    const none = await call(service, 'POST', '/invitations/accept', { rawBody: '', headers: form });
    expect(none.status).toBe(410);
    expect(titleOf(none.body)).toBe('Invitation link not valid');
  });

  it('10 concurrent presses of the button: exactly one page shows a key, the others say it was used', async () => {
    const email = uniqueEmail('presses');
    const invited = await invite(org.apiKey, { email, role: 'member' });
    const { link } = await linkTo(email);
    const answers = await Promise.all(Array.from({ length: 10 }, () => call(service, 'POST', link, { rawBody: '', headers: form })));
    const shown = answers.filter((answer) => answer.status === 200);
    expect(shown).toHaveLength(1);
    expect(answers.filter((answer) => answer.status === 410 && titleOf(answer.body) === 'Invitation already accepted')).toHaveLength(9);
    const memberKeys = (await listApiKeys(org.organizationId)).filter((entry) => entry.memberId === invited.body.member.id);
    expect(memberKeys).toHaveLength(1);
    expect((await call(service, 'GET', '/me', { apiKey: keyShown(shown[0]!.body)! })).body.memberId).toBe(invited.body.member.id);
  });

  it('an ended link is kept as a mark, not deleted, until 30 days after its expiry (TTL)', async () => {
    const email = uniqueEmail('mark');
    await invite(org.apiKey, { email, role: 'viewer' });
    const { link, token } = await linkTo(email);
    expect((await call(service, 'POST', link, { rawBody: '', headers: form })).status).toBe(200);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.invitation(hashInvitationToken(token)) }));
    expect(Item).toMatchObject({ endedAs: 'used', endedAt: expect.any(String) });
    expect(Item!.ttl).toBe(Math.ceil(Date.parse(Item!.expiresAt) / 1000) + 30 * 24 * 3600);
  });
});

describe('one address, one teammate', () => {
  it('409 conflict for an address already on the team, in any case', async () => {
    const email = uniqueEmail('Dup');
    expect((await invite(org.apiKey, { email, role: 'viewer' })).status).toBe(201);
    const again = await invite(org.apiKey, { email: email.toUpperCase(), role: 'member' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: 'conflict', message: expect.any(String) });
    // An admin meets the same wall.
    expect((await invite(admin.apiKey, { email: email.toLowerCase(), role: 'viewer' })).status).toBe(409);
  });

  it('two concurrent invitations of one address: one 201, one 409', async () => {
    for (let round = 0; round < 3; round += 1) {
      const email = uniqueEmail('twin');
      const [a, b] = await Promise.all([invite(org.apiKey, { email, role: 'viewer' }), invite(admin.apiKey, { email, role: 'member' })]);
      expect([a.status, b.status].sort()).toEqual([201, 409]);
    }
  });

  it('another organization may invite the same address', async () => {
    const email = uniqueEmail('shared');
    const other = await roomy(await createTestOrganization(service, 'approved', 'Other Org'));
    expect((await invite(org.apiKey, { email, role: 'viewer' })).status).toBe(201);
    expect((await invite(other.apiKey, { email, role: 'viewer' })).status).toBe(201);
  });
});

describe('a team of at most 2,000 members and pending invitations (decision 108)', () => {
  it('the 2,000th is invited and the next is 409 conflict with the limit; GET /members at the cap stays under 1 MB; removing one makes room', async () => {
    const big = await roomy(await createTestOrganization(service, 'approved', 'Full Team Org'));
    // 1,999 invitations written straight into the table, as a team from before the cap: counted at the next invitation.
    const at = new Date().toISOString();
    await batchPutAll(Array.from({ length: 1_999 }, (_, index) => {
      const id = `mem_${ulid()}`;
      const email = `seeded.${index}@example.com`;
      return {
        ...keys.member(big.organizationId, id), entity: memberEntity, id, organizationId: big.organizationId, email, emailKey: email, name: `Seeded Teammate ${index}`,
        role: 'viewer', status: 'invited', invitedAt: at, acceptedAt: null, createdAt: at, updatedAt: at, inviteTokenHash: `seeded-${index}`,
      };
    }));
    const last = await invite(big.apiKey, { email: uniqueEmail('last'), role: 'viewer', name: 'The Last One' });
    expect(last.status, JSON.stringify(last.body)).toBe(201);
    const refused = await invite(big.apiKey, { email: uniqueEmail('one-too-many'), role: 'viewer' });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'conflict', message: expect.stringContaining('2000 members and pending invitations'), limit: 2_000 });

    const atCap = await call(service, 'GET', '/members', { apiKey: big.apiKey });
    expect(atCap.body.count).toBe(2_000);
    expect(Buffer.byteLength(JSON.stringify(atCap.body))).toBeLessThan(1_000_000);

    // Rescinding an invitation makes room for one.
    expect((await call(service, 'DELETE', `/members/${last.body.member.id}`, { apiKey: big.apiKey })).status).toBe(200);
    expect((await invite(big.apiKey, { email: uniqueEmail('room'), role: 'viewer' })).status).toBe(201);
    expect((await invite(big.apiKey, { email: uniqueEmail('no-room'), role: 'viewer' })).status).toBe(409);
    // Seeding 1,999 members and counting them once takes a while on a busy machine.
  }, 120_000);
});

describe('roles are granted and changed only below the caller', () => {
  it('the owner grants admin, member, viewer; never owner', async () => {
    for (const role of ['admin', 'member', 'viewer']) expect((await invite(org.apiKey, { email: uniqueEmail(), role })).status).toBe(201);
    const owner = await invite(org.apiKey, { email: uniqueEmail(), role: 'owner' });
    expect(owner.status).toBe(403);
    expect(owner.body.error).toBe('forbidden');
  });

  it('an admin grants member and viewer, not admin or owner; a member cannot invite at all', async () => {
    for (const role of ['member', 'viewer']) expect((await invite(admin.apiKey, { email: uniqueEmail(), role })).status).toBe(201);
    for (const role of ['admin', 'owner']) {
      const refused = await invite(admin.apiKey, { email: uniqueEmail(), role });
      expect(refused.status, role).toBe(403);
      expect(refused.body.error).toBe('forbidden');
    }
    const member = await inviteAndAccept(service, admin.apiKey, 'member');
    for (const role of ['member', 'viewer']) {
      const refused = await invite(member.apiKey, { email: uniqueEmail(), role });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('forbidden');
    }
    // Nothing was created by the refusals: every invited address above is on the list once.
    const team = await call(service, 'GET', '/members', { apiKey: admin.apiKey });
    expect(new Set(team.body.members.map((m: { email: string }) => m.email.toLowerCase())).size).toBe(team.body.count);
  });

  it('an admin re-sends only invitations below its own role', async () => {
    const invitedAdmin = await invite(org.apiKey, { email: uniqueEmail(), role: 'admin' });
    const refused = await call(service, 'POST', `/members/${invitedAdmin.body.member.id}/invitations`, { apiKey: admin.apiKey });
    expect(refused.status).toBe(403);
    const invitedViewer = await invite(org.apiKey, { email: uniqueEmail(), role: 'viewer' });
    expect((await call(service, 'POST', `/members/${invitedViewer.body.member.id}/invitations`, { apiKey: admin.apiKey })).status).toBe(200);
  });

  it('PATCH: an admin changes members below it to roles below it; the key carries the new role at once', async () => {
    const viewer = await inviteAndAccept(service, org.apiKey, 'viewer');
    const promoted = await call(service, 'PATCH', `/members/${viewer.memberId}`, { apiKey: admin.apiKey, body: { role: 'member' } });
    expect(promoted.status).toBe(200);
    expect(UpdatedMember.parse(promoted.body)).toEqual(promoted.body);
    expect(promoted.body.member).toMatchObject({ id: viewer.memberId, role: 'member', status: 'active' });
    expect((await call(service, 'GET', '/me', { apiKey: viewer.apiKey })).body.role).toBe('member');
    expect((await call(service, 'POST', '/quotes', { apiKey: viewer.apiKey, body: quote })).status).toBe(200);

    for (const role of ['admin', 'owner']) {
      const refused = await call(service, 'PATCH', `/members/${viewer.memberId}`, { apiKey: admin.apiKey, body: { role } });
      expect(refused.status, role).toBe(403);
      expect(refused.body.error).toBe('forbidden');
    }
    const otherAdmin = await inviteAndAccept(service, org.apiKey, 'admin');
    for (const target of [otherAdmin.memberId, admin.memberId]) {
      const refused = await call(service, 'PATCH', `/members/${target}`, { apiKey: admin.apiKey, body: { role: 'viewer' } });
      expect(refused.status).toBe(403);
    }
    // The owner may demote an admin; its key is a viewer's from the next request on.
    const demoted = await call(service, 'PATCH', `/members/${otherAdmin.memberId}`, { apiKey: org.apiKey, body: { role: 'viewer' } });
    expect(demoted.body.member.role).toBe('viewer');
    expect((await call(service, 'GET', '/members', { apiKey: otherAdmin.apiKey })).status).toBe(403);
    // A pending invitation's role changes too, and the accepted key has it.
    const pendingEmail = uniqueEmail('pending');
    const pending = await invite(org.apiKey, { email: pendingEmail, role: 'viewer' });
    expect((await call(service, 'PATCH', `/members/${pending.body.member.id}`, { apiKey: org.apiKey, body: { role: 'admin' } })).body.member).toMatchObject({ role: 'admin', status: 'invited' });
    const { token } = await invitationMail(pendingEmail);
    const joined = await call(service, 'POST', '/invitations/accept', { body: { token } });
    expect(joined.body.member.role).toBe('admin');
    expect((await call(service, 'GET', '/me', { apiKey: joined.body.apiKey })).body.role).toBe('admin');

    const missing = await call(service, 'PATCH', '/members/mem_01JDZZZZZZZZZZZZZZZZZZZZZZ', { apiKey: org.apiKey, body: { role: 'viewer' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('not_found');
  });

  it('DELETE an active member: its key is 401 at once; a pending invitation is rescinded', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'member');
    expect((await call(service, 'GET', '/me', { apiKey: member.apiKey })).status).toBe(200);
    const removed = await call(service, 'DELETE', `/members/${member.memberId}`, { apiKey: admin.apiKey });
    expect(removed.status).toBe(200);
    expect(RemovedMember.parse(removed.body)).toEqual(removed.body);
    expect(removed.body).toMatchObject({ rescinded: false, member: { id: member.memberId, status: 'removed', email: member.email } });
    const after = await call(service, 'GET', '/me', { apiKey: member.apiKey });
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('unauthorized');
    const team = await call(service, 'GET', '/members', { apiKey: org.apiKey });
    expect(team.body.members.map((m: { id: string }) => m.id)).not.toContain(member.memberId);
    expect((await call(service, 'DELETE', `/members/${member.memberId}`, { apiKey: org.apiKey })).status).toBe(404);
    // The address may be invited again.
    expect((await invite(org.apiKey, { email: member.email, role: 'viewer' })).status).toBe(201);

    const email = uniqueEmail('rescind');
    const pending = await invite(org.apiKey, { email, role: 'viewer' });
    const { token } = await invitationMail(email);
    const rescinded = await call(service, 'DELETE', `/members/${pending.body.member.id}`, { apiKey: org.apiKey });
    expect(rescinded.body).toMatchObject({ rescinded: true, member: { status: 'removed' } });
    expect((await call(service, 'POST', '/invitations/accept', { body: { token } })).body.error).toBe('invalid_invite');
  });

  it('DELETE bounds: an admin cannot remove an admin, the owner can', async () => {
    const otherAdmin = await inviteAndAccept(service, org.apiKey, 'admin');
    for (const target of [otherAdmin.memberId, admin.memberId]) {
      const refused = await call(service, 'DELETE', `/members/${target}`, { apiKey: admin.apiKey });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toBe('forbidden');
    }
    expect((await call(service, 'GET', '/me', { apiKey: otherAdmin.apiKey })).status).toBe(200);
    const byOwner = await call(service, 'DELETE', `/members/${otherAdmin.memberId}`, { apiKey: org.apiKey });
    expect(byOwner.status).toBe(200);
    expect((await call(service, 'GET', '/me', { apiKey: otherAdmin.apiKey })).status).toBe(401);
  });
});

describe('keys', () => {
  it('POST /members/me/api-key: the old member key is 401 on the very next request, the new one works', async () => {
    const member = await inviteAndAccept(service, org.apiKey, 'member');
    const rotated = await call(service, 'POST', '/members/me/api-key', { apiKey: member.apiKey });
    expect(rotated.status).toBe(200);
    expect(RotatedMemberKey.parse(rotated.body)).toEqual(rotated.body);
    expect(rotated.body.apiKey).not.toBe(member.apiKey);
    expect(rotated.body.member).toMatchObject({ id: member.memberId, role: 'member', status: 'active' });
    expect((await call(service, 'GET', '/me', { apiKey: member.apiKey })).status).toBe(401);
    const me = await call(service, 'GET', '/me', { apiKey: rotated.body.apiKey });
    expect(me.body).toMatchObject({ role: 'member', memberId: member.memberId });
    // The member's removal revokes the rotated key too.
    await call(service, 'DELETE', `/members/${member.memberId}`, { apiKey: org.apiKey });
    expect((await call(service, 'GET', '/me', { apiKey: rotated.body.apiKey })).status).toBe(401);
  });

  it('the organization key gets 409 member_required there', async () => {
    const refused = await call(service, 'POST', '/members/me/api-key', { apiKey: org.apiKey });
    expect(refused.status).toBe(409);
    expect(refused.body).toEqual({ error: 'member_required', message: expect.any(String) });
  });

  it('POST /api-keys/rotate: owner only; the calling key is 401 at once, the new one works, member keys stay', async () => {
    const own = await roomy(await createTestOrganization(service, 'approved', 'Rotating Org'));
    const teammate = await inviteAndAccept(service, own.apiKey, 'admin');
    const refused = await call(service, 'POST', '/api-keys/rotate', { apiKey: teammate.apiKey });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toBe('forbidden');

    const rotated = await call(service, 'POST', '/api-keys/rotate', { apiKey: own.apiKey });
    expect(rotated.status).toBe(200);
    expect(RotatedOrganizationKey.parse(rotated.body)).toEqual(rotated.body);
    expect(rotated.body.apiKey).toMatch(/^sk_sim_/);
    expect((await call(service, 'GET', '/me', { apiKey: own.apiKey })).status).toBe(401);
    expect((await call(service, 'POST', '/api-keys/rotate', { apiKey: own.apiKey })).status).toBe(401);
    const me = await call(service, 'GET', '/me', { apiKey: rotated.body.apiKey });
    expect(me.body).toEqual({ id: own.organizationId, name: 'Rotating Org', role: 'owner' });
    expect((await call(service, 'GET', '/me', { apiKey: teammate.apiKey })).status).toBe(200);
    const keysLeft = await listApiKeys(own.organizationId);
    expect(keysLeft.filter((entry) => entry.role === 'owner' && !entry.memberId)).toHaveLength(1);
  });

  it('the ops CLI issues a new organization key for a lost one', async () => {
    const lost = await createTestOrganization(service, 'approved', 'Lost Key Org');
    const teammate = await inviteAndAccept(service, lost.apiKey, 'viewer');
    const result = await runAdmin(['org', 'rotate-key', lost.organizationId], { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });
    expect(result.status, result.stderr).toBe(0);
    const lines = result.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const printed = JSON.parse(lines[0]!);
    expect(printed).toEqual({ organizationId: lost.organizationId, apiKey: expect.stringMatching(/^sk_sim_/), role: 'owner', revokedKeys: 1 });
    expect((await call(service, 'GET', '/me', { apiKey: lost.apiKey })).status).toBe(401);
    expect((await call(service, 'GET', '/me', { apiKey: printed.apiKey })).body.role).toBe('owner');
    expect((await call(service, 'GET', '/me', { apiKey: teammate.apiKey })).status).toBe(200);

    const unknown = await runAdmin(['org', 'rotate-key', 'org_01JDZZZZZZZZZZZZZZZZZZZZZZ'], { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });
    expect(unknown.status).not.toBe(0);
    expect(unknown.stdout).toBe('');
  }, 90_000);

  it('the ops CLI reads the newest invitation in the outbox as a person would', async () => {
    const email = uniqueEmail('cli');
    await invite(org.apiKey, { email, role: 'viewer' });
    const result = await runAdmin(['mail', 'latest', '--to', email]);
    expect(result.status, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout.trim());
    expect(printed).toMatchObject({ to: [email], subject: 'Invitation to join Team Org', token: expect.any(String) });
    expect((await call(service, 'POST', '/invitations/accept', { body: { token: printed.token } })).status).toBe(200);
  }, 90_000);
});

describe('bad input never reaches the store', () => {
  const teamRoutes = routes.filter((definition) => (definition.feature === 'team' || definition.feature === 'api-keys') && definition.request?.body);
  const hostile: [string, unknown][] = [
    ['a JSON array', []],
    ['a string', 'hello'],
    ['null', null],
    ['an empty object', {}],
    ['an unknown field', { unknown: true }],
    ['numbers for strings', { email: 5, role: 7, token: 9, name: 3 }],
    ['an oversized string', { email: `${'a'.repeat(100_000)}@example.com`, role: 'viewer', token: 'x'.repeat(100_000) }],
    ['a prototype-pollution attempt', JSON.parse('{"__proto__": {"role": "owner"}, "constructor": {"prototype": {"x": 1}}}')],
  ];

  it('covers every body of the team and api-keys features', () => {
    expect(teamRoutes.map(routeKey).sort()).toEqual(['PATCH /members/{memberId}', 'POST /invitations/accept', 'POST /members/invitations'].sort());
  });

  it.each(teamRoutes.flatMap((definition) => hostile.map(([label, body]) => [routeKey(definition), label, definition.path, body] as const)))(
    '%s with %s is 400 validation with issues',
    async (_key, _label, routePath, body) => {
      const method = _key.split(' ')[0]!;
      const target = routePath.replace('{memberId}', admin.memberId);
      const response = await call(service, method, target, {
        apiKey: org.apiKey,
        rawBody: JSON.stringify(body),
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('validation');
      expect(response.body.issues.length).toBeGreaterThan(0);
      for (const issue of response.body.issues) expect(issue).toEqual({ path: expect.any(Array), message: expect.any(String) });
    },
  );

  it.each([
    ['not an address', { email: 'not-an-email', role: 'viewer' }],
    ['an address over 320 characters', { email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.${'e'.repeat(63)}.com`, role: 'viewer' }],
    ['an empty name', { email: 'someone@example.com', name: '', role: 'viewer' }],
    ['a name over 200 characters', { email: 'someone@example.com', name: 'n'.repeat(201), role: 'viewer' }],
    ['a role that is no role', { email: 'someone@example.com', role: 'superuser' }],
    ['no role', { email: 'someone@example.com' }],
    ['an extra field', { email: 'someone@example.com', role: 'viewer', organizationId: org?.organizationId ?? 'x' }],
  ])('POST /members/invitations with %s is 400 validation', async (_label, body) => {
    const response = await invite(org.apiKey, body);
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('validation');
    expect(response.body.issues.length).toBeGreaterThan(0);
  });

  it.each([
    ['an empty token', { token: '' }],
    ['a token over 200 characters', { token: 't'.repeat(201) }],
    ['an extra field', { token: 'abc', role: 'owner' }],
  ])('POST /invitations/accept with %s is 400 validation', async (_label, body) => {
    const response = await call(service, 'POST', '/invitations/accept', { body });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('validation');
  });

  it('the invitation rows and the key rows are live, not 501', () => {
    for (const definition of routes.filter((row) => row.feature === 'team' || row.feature === 'api-keys')) {
      expect(definition.handler, routeKey(definition)).not.toBe('functions/api/notImplemented.ts');
    }
  });
});
