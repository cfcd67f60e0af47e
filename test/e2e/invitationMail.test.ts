import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { readOutbox } from '../../lib/ops/outbox.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { invitationMail, outboxDirectory, uniqueEmail, useTemporaryOutbox } from '../support/team.ts';
import { runAdmin } from '../support/admin.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { setRateLimits } from '#store/organizations.ts';

/**
 * What one admin can make the service's sender do to one inbox (docs/decisions/109): invitation
 * e-mails to an address are at most two a minute and six a day, however they are asked for (re-sends
 * at once, rescinding and inviting again); a suppressed address is never mailed. The organization's
 * own buckets are wide open here, so only the e-mail limit can refuse.
 */
let service: LocalService;
let org: TestOrganization;

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Mail Limits Org');
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
});

afterAll(async () => {
  await service?.stop();
});

const invite = (email: string) => call(service, 'POST', '/members/invitations', { apiKey: org.apiKey, body: { email, name: 'Ana', role: 'viewer' } });
const resend = (memberId: string) => call(service, 'POST', `/members/${memberId}/invitations`, { apiKey: org.apiKey });
const mailsTo = async (email: string) => (await readOutbox(outboxDirectory())).filter((message) => message.to.includes(email)).length;

/** Time passes for the address's invitation e-mails: every recorded send moves `seconds` into the past. */
async function age(email: string, seconds: number): Promise<void> {
  const key = keys.invitationMails(org.organizationId, email);
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
  const sentAt = (Item!.sentAt as string[]).map((at) => new Date(Date.parse(at) - seconds * 1000).toISOString());
  await dynamo().send(new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: 'SET sentAt = :sentAt', ExpressionAttributeValues: { ':sentAt': sentAt } }));
}

function expectLimited(answer: { status: number; headers: Headers; body: any }, atLeast: number, atMost: number) {
  expect(answer.status, JSON.stringify(answer.body)).toBe(429);
  expect(answer.body).toMatchObject({ error: 'rate_limited', message: expect.any(String), retryAfterSeconds: expect.any(Number) });
  expect(answer.body.retryAfterSeconds).toBeGreaterThanOrEqual(atLeast);
  expect(answer.body.retryAfterSeconds).toBeLessThanOrEqual(atMost);
  expect(answer.headers.get('retry-after')).toBe(String(answer.body.retryAfterSeconds));
}

describe('invitation e-mails to one address', () => {
  it('30 re-sends at once: one goes (two e-mails in the inbox), the others are 429 rate_limited with Retry-After', async () => {
    const email = uniqueEmail('flood');
    const invited = await invite(email);
    expect(invited.status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 30 }, () => resend(invited.body.member.id)));
    expect(answers.filter((answer) => answer.status === 200), JSON.stringify(answers.map((answer) => [answer.status, answer.body]).slice(0, 4))).toHaveLength(1);
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(refused).toHaveLength(29);
    // Thirty transactions on one counter item: DynamoDB may cancel a loser for the conflict, which is
    // the contract's retryable 503. Retried, as a client does, it is the limit's 429 like the others.
    for (const answer of refused.filter((candidate) => candidate.status === 503)) {
      expect(answer.body.error).toBe('unavailable');
      expectLimited(await resend(invited.body.member.id), 1, 60);
    }
    for (const answer of refused.filter((candidate) => candidate.status !== 503)) expectLimited(answer, 1, 60);
    expect(await mailsTo(email)).toBe(2);
    // The link that went is the one that works.
    const { token } = await invitationMail(email);
    expect((await call(service, 'POST', '/invitations/accept', { body: { token } })).status).toBe(200);
  });

  it('six a day, the invitation included; rescinding and inviting again does not start afresh', async () => {
    const email = uniqueEmail('daily');
    let memberId = (await invite(email)).body.member.id as string;
    for (let resent = 1; resent <= 5; resent += 1) {
      // A minute (and a bit) passes before each re-send.
      await age(email, 61);
      const answer = await resend(memberId);
      expect(answer.status, `re-send ${resent}: ${JSON.stringify(answer.body)}`).toBe(200);
    }
    expect(await mailsTo(email)).toBe(6);
    await age(email, 61);
    // The oldest of the six leaves the day about 24 h - 6 minutes from now.
    expectLimited(await resend(memberId), 23 * 3600, 24 * 3600);

    const rescinded = await call(service, 'DELETE', `/members/${memberId}`, { apiKey: org.apiKey });
    expect(rescinded.status).toBe(200);
    const again = await invite(email.toUpperCase());
    expectLimited(again, 23 * 3600, 24 * 3600);
    expect((await call(service, 'GET', '/members', { apiKey: org.apiKey })).body.members.some((member: { email: string }) => member.email.toLowerCase() === email)).toBe(false);
    expect(await mailsTo(email)).toBe(6);

    // A day later the address may be invited again.
    await age(email, 24 * 3600);
    memberId = (await invite(email)).body.member.id;
    expect(memberId).toMatch(/^mem_/);
    expect(await mailsTo(email)).toBe(7);
  });

  it('another organization is not held back by this one\'s e-mails to the same address', async () => {
    const email = uniqueEmail('shared');
    const first = await invite(email);
    await resend(first.body.member.id);
    expectLimited(await resend(first.body.member.id), 1, 60);
    const other = await createTestOrganization(service, 'approved', 'Other Mail Org');
    const theirs = await call(service, 'POST', '/members/invitations', { apiKey: other.apiKey, body: { email, role: 'viewer' } });
    expect(theirs.status).toBe(201);
    expect(theirs.body.emailDelivered).toBe(true);
  });
});

describe('a suppressed address', () => {
  it('is never mailed an invitation: 201 with emailDelivered false saying why, nothing in the outbox, nothing counted', async () => {
    const email = uniqueEmail('bounced');
    const target = { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName };
    expect((await runAdmin(['mail', 'bounce', email], target)).status).toBe(0);
    const invited = await invite(email);
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ emailDelivered: false, emailError: expect.stringContaining('suppression list'), member: { status: 'invited' } });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const resent = await resend(invited.body.member.id);
      expect(resent.status).toBe(200);
      expect(resent.body).toMatchObject({ emailDelivered: false, emailError: expect.stringContaining('suppression list') });
    }
    expect(await mailsTo(email)).toBe(0);

    // Lifted by an operator: the next re-send goes at once (nothing was counted while suppressed).
    expect((await runAdmin(['mail', 'unsuppress', email], target)).status).toBe(0);
    const delivered = await resend(invited.body.member.id);
    expect(delivered.body.emailDelivered).toBe(true);
    expect(await mailsTo(email)).toBe(1);
  }, 90_000);
});
