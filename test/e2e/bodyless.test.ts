import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { invitationMail, inviteAndAccept, uniqueEmail, useTemporaryOutbox, type Teammate } from '../support/team.ts';
import { until } from '../support/eventually.ts';
import { setRateLimits } from '#store/organizations.ts';
import { routeKey, routes, rotateMemberKey, takesNoBody } from '#contract/routes.ts';

/**
 * Every route that changes something without taking a body (rotate a key, re-send an invitation, pay
 * a deposit as the sandbox payer, delete), walked from the route table: a body it cannot read, or one
 * with content, is refused with the body errors of any other route and changes nothing; none or `{}`
 * is accepted (docs/decisions/074).
 */
let service: LocalService;
let org: TestOrganization;
let member: Teammate;
let invitedId: string;
let invitedEmail: string;
let recipientId: string;
let onRampId: string;

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Bodyless Org');
  await setRateLimits(org.organizationId, { burst: 1000, perSecond: 200 });
  member = await inviteAndAccept(service, org.apiKey, 'member');
  invitedEmail = uniqueEmail('invited');
  const invited = await call(service, 'POST', '/members/invitations', { apiKey: org.apiKey, body: { email: invitedEmail, name: 'Invited', role: 'viewer' } });
  expect(invited.status).toBe(201);
  invitedId = invited.body.member.id;
  const recipient = await call(service, 'POST', '/recipients', {
    apiKey: org.apiKey,
    body: { name: 'Treasury cold wallet', type: 'wallet', address: `0x${'b'.repeat(40)}`, networkId: 'base' },
  });
  expect(recipient.status).toBe(201);
  recipientId = recipient.body.id;
  const onRamp = await call(service, 'POST', '/treasury/onramp', { apiKey: org.apiKey, body: { idempotencyKey: 'bodyless-onramp-1', amount: { amount: '100', currency: 'USD' } } });
  expect(onRamp.status).toBe(202);
  onRampId = onRamp.body.onRampId;
  // Its workflow opens the collection on its own: compare from AWAITING_PAYMENT on, where only a
  // payment (or a request that changed something) could move it.
  await until(() => call(service, 'GET', `/treasury/onramp/${onRampId}`, { apiKey: org.apiKey }), (answer) => answer.body.stage === 'AWAITING_PAYMENT', {
    what: 'the announced on-ramp to await its payment',
  });
});

afterAll(async () => {
  await service?.stop();
});

const unreadable = [
  { name: 'not JSON', rawBody: '{not json', contentType: 'application/json', status: 400, error: 'invalid_json' },
  { name: 'cut short', rawBody: '{"reason":', contentType: 'application/json', status: 400, error: 'invalid_json' },
  { name: 'not UTF-8', rawBody: Buffer.from([0x7b, 0xff, 0x7d]), contentType: 'application/json', status: 400, error: 'bad_request' },
  { name: 'not JSON content', rawBody: 'rotate please', contentType: 'text/plain', status: 415, error: 'unsupported_media_type' },
  { name: 'a field', rawBody: '{"reason":"lost"}', contentType: 'application/json', status: 400, error: 'validation' },
  { name: 'an array', rawBody: '[]', contentType: 'application/json', status: 400, error: 'validation' },
  { name: 'null', rawBody: 'null', contentType: 'application/json', status: 400, error: 'validation' },
];

describe('a route that takes no body', () => {
  const bodyless = routes.filter(takesNoBody);

  it('the route table has them (key rotations among them)', () => {
    expect(bodyless.map(routeKey)).toEqual(expect.arrayContaining(['POST /api-keys/rotate', 'POST /members/me/api-key']));
  });

  it('refuses every body it cannot read or that has content, and nothing changes', async () => {
    // A body is refused before the handler reads the path, so an event id that names nothing will do.
    const samples: Record<string, string> = { memberId: member.memberId, recipientId, onRampId, eventId: 'evt_bodyless' };
    const onRampBefore = await call(service, 'GET', `/treasury/onramp/${onRampId}`, { apiKey: org.apiKey });
    expect(onRampBefore.status).toBe(200);
    for (const definition of bodyless) {
      const path = definition.path.replace(/\{(\w+)\}/g, (_, name: string) => {
        expect(samples, `a sample ${name} for ${routeKey(definition)}`).toHaveProperty(name);
        // The invitation to re-send is the one still open.
        return definition.operationId === 'resendInvitation' ? invitedId : samples[name]!;
      });
      const apiKey = definition === rotateMemberKey ? member.apiKey : org.apiKey;
      for (const body of unreadable) {
        const answer = await call(service, definition.method, path, { apiKey, rawBody: body.rawBody, headers: { 'content-type': body.contentType } });
        expect(answer.status, `${routeKey(definition)} with ${body.name}: ${JSON.stringify(answer.body)}`).toBe(body.status);
        expect(answer.body.error).toBe(body.error);
      }
    }
    // The keys still work, the member is still there, the invitation's link still accepts,
    // the recipient is still saved and the deposit still waits for its payment.
    expect((await call(service, 'GET', '/me', { apiKey: org.apiKey })).status).toBe(200);
    expect((await call(service, 'GET', '/me', { apiKey: member.apiKey })).body).toMatchObject({ memberId: member.memberId });
    const recipients = await call(service, 'GET', '/recipients', { apiKey: org.apiKey });
    expect(recipients.body.recipients.map((recipient: { id: string }) => recipient.id)).toContain(recipientId);
    const onRampAfter = await call(service, 'GET', `/treasury/onramp/${onRampId}`, { apiKey: org.apiKey });
    expect(onRampAfter.body).toEqual(onRampBefore.body);
    const { token } = await invitationMail(invitedEmail);
    expect((await call(service, 'POST', '/invitations/accept', { body: { token } })).status).toBe(200);
  });

  it('accepts no body or {}: the keys rotate', async () => {
    const own = await createTestOrganization(service, 'approved', 'Rotate With Braces');
    const teammate = await inviteAndAccept(service, own.apiKey, 'member');
    const rotated = await call(service, 'POST', '/api-keys/rotate', { apiKey: own.apiKey, body: {} });
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200);
    expect((await call(service, 'GET', '/me', { apiKey: own.apiKey })).status).toBe(401);
    expect((await call(service, 'GET', '/me', { apiKey: rotated.body.apiKey })).status).toBe(200);
    const memberRotated = await call(service, 'POST', '/members/me/api-key', { apiKey: teammate.apiKey, body: {} });
    expect(memberRotated.status, JSON.stringify(memberRotated.body)).toBe(200);
    expect((await call(service, 'GET', '/me', { apiKey: teammate.apiKey })).status).toBe(401);
    const again = await call(service, 'POST', '/members/me/api-key', { apiKey: memberRotated.body.apiKey });
    expect(again.status).toBe(200);
  });
});
