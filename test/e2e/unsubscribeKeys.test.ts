import { createHmac, randomBytes } from 'node:crypto';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { readOutbox } from '../../lib/ops/outbox.ts';
import { call, createTestOrganization, startTestService, untilSettled, type TestOrganization } from '../support/service.ts';
import { inviteAndAccept, outboxDirectory, useTemporaryOutbox, type Teammate } from '../support/team.ts';
import { eventually } from '../support/eventually.ts';
import { runAdmin } from '../support/admin.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';

/**
 * The unsubscribe links' secret (docs/decisions/110): the member's key is stored sealed, never in
 * clear, and every link names the key version that signed it. Rotating the member's API key makes a
 * new version, so the links of every e-mail sent before answer the "not valid" page; removing the
 * member retires them all. Links from before versions keep working until the first rotation.
 */
let service: LocalService;
let org: TestOrganization;
let seq = 0;
const mx = findCorridor('USDC', 'MXN', 'MX')!;
const form = { 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Unsubscribe Keys Org');
  await setRateLimits(org.organizationId, { burst: 100_000, perSecond: 10_000 });
  await creditDeposit({ organizationId: org.organizationId, depositId: `dep-unsub-${Date.now()}`, amount: 10_000n * 1_000_000n, rail: 'wire', memo: 'test deposit' });
});

afterAll(async () => {
  await service?.stop();
});

const preferences = async (member: Teammate) => (await call(service, 'GET', '/notifications/preferences', { apiKey: member.apiKey })).body;

async function newestLink(email: string, subject: RegExp, path: string): Promise<string> {
  return eventually(async () => {
    const message = (await readOutbox(outboxDirectory())).reverse().find((candidate) => candidate.to.includes(email) && subject.test(candidate.subject));
    const link = message?.links.find((candidate) => new URL(candidate).pathname === path) ?? message?.headers['list-unsubscribe']?.slice(1, -1);
    return link ? `${new URL(link).pathname}${new URL(link).search}` : undefined;
  }, { what: `a ${path} link e-mailed to ${email}`, timeoutMs: 30_000 });
}

async function verifiedMember(events: string[]): Promise<Teammate> {
  const member = await inviteAndAccept(service, org.apiKey, 'member');
  expect((await call(service, 'PUT', '/notifications/preferences', { apiKey: member.apiKey, body: { events } })).status).toBe(200);
  expect((await call(service, 'POST', '/notifications/verify/send', { apiKey: member.apiKey })).status).toBe(202);
  expect((await call(service, 'GET', await newestLink(member.email, /^Verify your address/, '/notifications/verify'))).status).toBe(200);
  return member;
}

/** A payment that reconciles, and the unsubscribe link of its e-mail to `member`. */
async function unsubscribeLinkOfNextPayment(member: Teammate): Promise<string> {
  const transactionId = `unsub-${Date.now().toString(36)}-${(seq += 1)}`;
  const accepted = await call(service, 'POST', '/transactions', {
    apiKey: org.apiKey,
    body: { idempotencyKey: transactionId, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '20.00', currency: 'USDC' }, recipientReference: 'unsubscribe keys', beneficiary: sampleBeneficiary(mx) },
  });
  expect(accepted.status).toBe(202);
  expect((await untilSettled(service, org.apiKey, `/transactions/${transactionId}`)).state).toBe('RECONCILED');
  return newestLink(member.email, new RegExp(`^Payment ${transactionId} reconciled`), '/notifications/unsubscribe');
}

const memberItem = async (memberId: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.member(org.organizationId, memberId), ConsistentRead: true }))).Item!;

const oneClick = (link: string) => call(service, 'POST', link, { rawBody: 'List-Unsubscribe=One-Click', headers: form });

describe('the member\'s unsubscribe key', () => {
  it('is stored sealed, with a version, never in clear', async () => {
    const member = await verifiedMember(['transaction.reconciled']);
    const item = await memberItem(member.memberId);
    expect(item.notifyKey).toBeUndefined();
    expect(item.notifyKeyVersion).toBe(1);
    expect(item.notifyKeySealed).toEqual({ by: 'local', iv: expect.any(String), tag: expect.any(String), ciphertext: expect.any(String) });
  });

  it('rotating the member\'s API key retires the links of every e-mail sent before; the next e-mail\'s link works', async () => {
    const member = await verifiedMember(['transaction.reconciled', 'transaction.refunded']);
    const before = await unsubscribeLinkOfNextPayment(member);
    expect((await call(service, 'GET', before)).status).toBe(200);

    const rotated = await call(service, 'POST', '/members/me/api-key', { apiKey: member.apiKey });
    expect(rotated.status).toBe(200);
    member.apiKey = rotated.body.apiKey;
    expect((await memberItem(member.memberId)).notifyKeyVersion).toBe(2);

    const asked = await call(service, 'GET', before);
    expect(asked.status).toBe(410);
    expect(asked.body).toContain('not valid');
    const refused = await oneClick(before);
    expect(refused.status).toBe(410);
    expect((await preferences(member)).events).toEqual(['transaction.reconciled', 'transaction.refunded']);

    const after = await unsubscribeLinkOfNextPayment(member);
    expect(after).not.toBe(before);
    const done = await oneClick(after);
    expect(done.status, done.body).toBe(200);
    expect((await preferences(member)).events).toEqual(['transaction.refunded']);
  }, 120_000);

  it('removing the member retires all its links, also once the address joins again', async () => {
    const leaving = await verifiedMember(['transaction.reconciled']);
    const link = await unsubscribeLinkOfNextPayment(leaving);
    expect((await call(service, 'GET', link)).status).toBe(200);
    expect((await call(service, 'DELETE', `/members/${leaving.memberId}`, { apiKey: org.apiKey })).status).toBe(200);
    expect((await call(service, 'GET', link)).status).toBe(410);
    expect((await oneClick(link)).status).toBe(410);

    await inviteAndAccept(service, org.apiKey, 'member', leaving.email);
    expect((await call(service, 'GET', link)).status).toBe(410);
  }, 120_000);

  it('a key from before sealing: its links work as version 1, the ops CLI seals it, and a rotation retires them', async () => {
    const member = await verifiedMember(['transaction.reconciled', 'transaction.refunded']);
    // As a member verified before decision 110: its key in clear, no version.
    const clear = randomBytes(32).toString('base64url');
    await dynamo().send(new UpdateCommand({
      TableName: tableName(),
      Key: keys.member(org.organizationId, member.memberId),
      UpdateExpression: 'SET notifyKey = :clear REMOVE notifyKeySealed, notifyKeyVersion',
      ExpressionAttributeValues: { ':clear': clear },
    }));
    const payload = Buffer.from(JSON.stringify([org.organizationId, member.memberId, 'transaction.refunded'])).toString('base64url');
    const legacy = `/notifications/unsubscribe?token=${payload}.${createHmac('sha256', clear).update(payload, 'utf8').digest('base64url')}`;
    expect((await call(service, 'GET', legacy)).status).toBe(200);

    const sealed = await runAdmin(['notifications', 'seal-keys'], { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });
    expect(sealed.status, sealed.stderr).toBe(0);
    expect(JSON.parse(sealed.stdout).sealed).toBeGreaterThanOrEqual(1);
    const item = await memberItem(member.memberId);
    expect(item.notifyKey).toBeUndefined();
    expect(item.notifyKeyVersion).toBe(1);
    expect(JSON.stringify(item)).not.toContain(clear);
    expect((await call(service, 'GET', legacy)).status).toBe(200);

    const rotated = await call(service, 'POST', '/members/me/api-key', { apiKey: member.apiKey });
    expect(rotated.status).toBe(200);
    expect((await oneClick(legacy)).status).toBe(410);
    expect((await call(service, 'GET', '/notifications/preferences', { apiKey: rotated.body.apiKey })).body.events).toEqual(['transaction.reconciled', 'transaction.refunded']);
  }, 120_000);
});
