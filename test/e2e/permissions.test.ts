import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { inviteAndAccept, useTemporaryOutbox } from '../support/team.ts';
import { permissionMatrix, type Role } from '#domain/permissions.ts';
import { getOrganization, setKybStatus, setRateLimits } from '#store/organizations.ts';
import { creditDeposit } from '#store/ledger.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { routes, routeKey, type RouteDefinition } from '#contract/routes.ts';

/**
 * The whole permission matrix, walked from the route table: every row that names a permission or
 * is owner-only, called by every role (owner with the organization key; admin, member and viewer
 * with member keys that joined through invitations). A role without the permission gets 403
 * `forbidden`; a role with it gets anything but that (a 400 for an empty body, a 404 for an id that
 * names nothing, a 501 for an unbuilt feature, or a success). A new row is walked as soon as it
 * exists: nothing here lists endpoints.
 */

/** The contract's table (Authentication, point 6), copied by hand on purpose: the service's own matrix is checked against it. */
const contractMatrix: Record<string, Role[]> = {
  'beneficiary.manage': ['owner', 'admin', 'member'],
  'member.invite': ['owner', 'admin'],
  'member.manage': ['owner', 'admin'],
  'member.read': ['owner', 'admin'],
  'payment.initiate': ['owner', 'admin', 'member'],
  'recipient.manage': ['owner', 'admin', 'member'],
  'recipient.read': ['owner', 'admin', 'member', 'viewer'],
  'treasury.move': ['owner', 'admin', 'member'],
  'webhook.manage': ['owner', 'admin'],
};

/** Least privileged first, the owner last: an owner-only call may rotate the owner's own key. */
const callers: Role[] = ['viewer', 'member', 'admin', 'owner'];

let service: LocalService;
let org: TestOrganization;
const keyOf = {} as Record<Role, string>;

const gated = routes.filter((definition) => definition.permission !== undefined || definition.ownerOnly);

function allowed(definition: RouteDefinition, role: Role): boolean {
  if (definition.ownerOnly && role !== 'owner') return false;
  return definition.permission === undefined || contractMatrix[definition.permission]!.includes(role);
}

/** The smallest path that routes to the row: every `{param}` becomes an id that parses and names nothing. */
function pathOf(definition: RouteDefinition): string {
  return definition.path.replace(/\{[^}]+\}/g, 'perm-walk-0001');
}

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Matrix Org');
  await setRateLimits(org.organizationId, { burst: 2000, perSecond: 500 });
  keyOf.owner = org.apiKey;
  for (const role of ['admin', 'member', 'viewer'] as const) keyOf[role] = (await inviteAndAccept(service, org.apiKey, role)).apiKey;
});

afterAll(async () => {
  await service?.stop();
});

describe('the permission matrix', () => {
  it("the service's matrix is the contract's", () => {
    expect(Object.keys(permissionMatrix).sort()).toEqual(Object.keys(contractMatrix).sort());
    for (const [permission, roles] of Object.entries(contractMatrix)) {
      expect([...permissionMatrix[permission as keyof typeof permissionMatrix]].sort(), permission).toEqual([...roles].sort());
    }
  });

  it('every permission of the contract guards at least one route, and every route names a known one', () => {
    const named = new Set(gated.map((definition) => definition.permission).filter(Boolean));
    expect([...named].sort()).toEqual(Object.keys(contractMatrix).sort());
    expect(gated.some((definition) => definition.ownerOnly)).toBe(true);
  });

  it.each(gated.map((definition) => [routeKey(definition), definition] as const))('%s answers each role as the matrix says', async (_key, definition) => {
    for (const role of callers) {
      const hasBody = definition.method !== 'GET' && definition.method !== 'DELETE';
      const answer = await call(service, definition.method, pathOf(definition), { apiKey: keyOf[role], ...(hasBody ? { body: {} } : {}) });
      const label = `${routeKey(definition)} as ${role}: ${answer.status} ${JSON.stringify(answer.body)}`;
      expect(answer.status, label).not.toBe(500);
      expect(answer.status, label).not.toBe(401);
      if (allowed(definition, role)) {
        expect(answer.status === 403 && answer.body?.error === 'forbidden', label).toBe(false);
      } else {
        expect(answer.status, label).toBe(403);
        expect(answer.body, label).toEqual({ error: 'forbidden', message: expect.any(String) });
      }
      // An owner-only call that rotated the calling key handed over its successor.
      if (role === 'owner' && answer.status === 200 && typeof answer.body?.apiKey === 'string') keyOf.owner = answer.body.apiKey;
    }
  });

  it('a route without a permission is open to every role', async () => {
    for (const role of callers) expect((await call(service, 'GET', '/me', { apiKey: keyOf[role] })).body.role).toBe(role);
  });
});

/**
 * What the caller may do is decided before its bucket is charged (issue 25, item 1): a request its
 * role or its organization's KYB refuses answers 403 at once and takes no token, so a low role
 * cannot empty the buckets the organization pays with.
 */
describe('a refused request spends none of the organization’s tokens', () => {
  it('60 POST /transactions from a viewer at once are each 403; the owner’s payment after them is not 429', async () => {
    const payer = await createTestOrganization(service, 'approved', 'Contract Limits Org');
    await creditDeposit({ organizationId: payer.organizationId, depositId: `dep-${payer.organizationId}`, amount: 1_000_000_000n, rail: 'wire', memo: 'test deposit' });
    const viewer = await inviteAndAccept(service, payer.apiKey, 'viewer');
    const payment = (idempotencyKey: string) => ({
      idempotencyKey, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.00', currency: 'USDC' },
      recipientReference: 'rent', beneficiary: sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!),
    });
    const refused = await Promise.all(Array.from({ length: 60 }, (_, index) => call(service, 'POST', '/transactions', { apiKey: viewer.apiKey, body: payment(`viewer-try-${index}`) })));
    for (const answer of refused) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(403);
      expect(answer.body.error).toBe('forbidden');
      // Still an authenticated answer: the bucket as it stands, untouched.
      expect(answer.headers.get('ratelimit-limit')).toBe('30');
      expect(answer.headers.get('ratelimit-remaining')).toBe('30');
    }
    const paid = await call(service, 'POST', '/transactions', { apiKey: payer.apiKey, body: payment('owner-after-viewer') });
    expect(paid.status, JSON.stringify(paid.body)).toBe(202);
    expect(paid.headers.get('ratelimit-remaining')).toBe('29');
  });

  it('an organization KYB has not approved is 403 kyb_required without a token taken, and pays at once when approved', async () => {
    const pending = await createTestOrganization(service, 'pending', 'Pending KYB Org');
    await creditDeposit({ organizationId: pending.organizationId, depositId: `dep-${pending.organizationId}`, amount: 1_000_000_000n, rail: 'wire', memo: 'test deposit' });
    const payment = (idempotencyKey: string) => ({
      idempotencyKey, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.00', currency: 'USDC' },
      recipientReference: 'rent', beneficiary: sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!),
    });
    // The first one from a key this process has not seen, the rest from one it has.
    const first = await call(service, 'POST', '/transactions', { apiKey: pending.apiKey, body: payment('pending-try-first') });
    const refused = [first, ...(await Promise.all(Array.from({ length: 40 }, (_, index) => call(service, 'POST', '/transactions', { apiKey: pending.apiKey, body: payment(`pending-try-${index}`) }))))];
    for (const answer of refused) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(403);
      expect(answer.body.error).toBe('kyb_required');
      expect(answer.headers.get('ratelimit-remaining')).toBe('30');
    }
    expect((await getOrganization(pending.organizationId))?.tatInitiate).toBeUndefined();
    await setKybStatus(pending.organizationId, 'approved');
    const paid = await call(service, 'POST', '/transactions', { apiKey: pending.apiKey, body: payment('approved-at-last') });
    expect(paid.status, JSON.stringify(paid.body)).toBe(202);
    expect(paid.headers.get('ratelimit-remaining')).toBe('29');
  });
});
