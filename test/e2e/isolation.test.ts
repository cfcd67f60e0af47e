import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { invitationMail, inviteAndAccept, uniqueEmail, useTemporaryOutbox } from '../support/team.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { notImplementedHandler, routes, routeKey, type RouteDefinition } from '#contract/routes.ts';
import { until } from '../support/eventually.ts';

/**
 * Every route with an id in its path, asked by organization B for organization A's resource: 404
 * `not_found` with the very body B gets for an id that does not exist, never 403 (which would
 * confirm the resource exists), and nothing of A's changed. The routes come from the route table;
 * a parameter with no way to make A's resource here fails the test once its route is built.
 */
let service: LocalService;
let a: TestOrganization;
let b: TestOrganization;

/** A's real ids, per path parameter name: the parameters whose resources can be made today. */
const realIds: Record<string, string[]> = {};
/** What A's resources looked like before B tried anything. */
let membersBefore: unknown;
let recipientsBefore: unknown;

/** A body each live route accepts, so the answer is about the id and not about the body. */
const sampleBodies: Record<string, unknown> = {
  updateMember: { role: 'viewer' },
  updateRecipient: { name: 'Renamed by someone else' },
  topUpEurc: { amount: '1.00' },
};

const withId = routes.filter((definition) => /\{[^}]+\}/.test(definition.path));
const isLive = (definition: RouteDefinition) => definition.handler !== notImplementedHandler;
const paramsOf = (definition: RouteDefinition) => [...definition.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);

/** Looks like the real one (same prefix and length), names nothing. */
function nonexistent(real: string | undefined, param: string): string {
  if (!real) return `${param}-nonexistent-0001`;
  return `${real.slice(0, -4)}${real.endsWith('ZZZZ') ? 'YYYY' : 'ZZZZ'}`;
}

function pathWith(definition: RouteDefinition, ids: Record<string, string>): string {
  return definition.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(ids[name]!));
}

beforeAll(async () => {
  useTemporaryOutbox();
  service = await startTestService();
  a = await createTestOrganization(service, 'approved', 'Organization A');
  b = await createTestOrganization(service, 'approved', 'Organization B');
  for (const organization of [a, b]) {
    await setRateLimits(organization.organizationId, { burst: 1000, perSecond: 200 });
  }

  // A payment of A's.
  await creditDeposit({ organizationId: a.organizationId, depositId: `dep-isolation-${Date.now()}`, amount: 1_000_000_000n, rail: 'wire', memo: 'test deposit' });
  const paid = await call(service, 'POST', '/transactions', {
    apiKey: a.apiKey,
    body: {
      idempotencyKey: `iso-${Date.now().toString(36)}`,
      corridor: { to: 'MXN', destinationCountry: 'MX' },
      sendAmount: { amount: '25.00', currency: 'USDC' },
      recipientReference: 'isolation',
      beneficiary: sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!),
    },
  });
  expect(paid.status, JSON.stringify(paid.body)).toBe(202);
  realIds.transactionId = [paid.body.transactionId];

  // A batch of A's.
  const mx = findCorridor('USDC', 'MXN', 'MX')!;
  const batched = await call(service, 'POST', '/batches', {
    apiKey: a.apiKey,
    body: {
      batchId: `iso-batch-${Date.now().toString(36)}`,
      corridor: { to: 'MXN', destinationCountry: 'MX' },
      provider: mx.routes[0]!.provider,
      items: [{ itemRef: 'one', sendAmount: { amount: '25.00', currency: 'USDC' }, recipientReference: 'isolation', beneficiary: sampleBeneficiary(mx) }],
    },
  });
  expect(batched.status, JSON.stringify(batched.body)).toBe(202);
  realIds.batchId = [batched.body.batchId];

  // A's home wallet.
  realIds.walletId = [a.homeWalletId];

  // A's members: one who joined, one still invited.
  const joined = await inviteAndAccept(service, a.apiKey, 'member');
  const pendingEmail = uniqueEmail('pending');
  const pending = await call(service, 'POST', '/members/invitations', { apiKey: a.apiKey, body: { email: pendingEmail, role: 'viewer' } });
  expect(pending.status).toBe(201);
  await invitationMail(pendingEmail);
  realIds.memberId = [joined.memberId, pending.body.member.id];
  membersBefore = (await call(service, 'GET', '/members', { apiKey: a.apiKey })).body;

  // A saved recipient of A's, once recipients are built.
  const createRecipient = routes.find((definition) => definition.operationId === 'createRecipient');
  if (createRecipient && isLive(createRecipient)) {
    const saved = await call(service, 'POST', '/recipients', {
      apiKey: a.apiKey,
      body: { name: 'Isolation Recipient', type: 'bank', account: '000123456789' },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
    realIds.recipientId = [saved.body.id];
    recipientsBefore = (await call(service, 'GET', '/recipients', { apiKey: a.apiKey })).body;
  }

  // A withdrawal of A's, once withdrawals are built.
  const createWithdrawal = routes.find((definition) => definition.operationId === 'createWithdrawal');
  if (createWithdrawal && isLive(createWithdrawal)) {
    const sent = await call(service, 'POST', '/treasury/withdrawals', {
      apiKey: a.apiKey,
      body: { idempotencyKey: `iso-wd-${Date.now().toString(36)}`, amount: { amount: '5.00', currency: 'USDC' }, chain: 'base', toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    realIds.withdrawalId = [sent.body.withdrawalId];
  }

  // An off-ramp of A's (to a beneficiary of A's), once off-ramps are built.
  const createOffRamp = routes.find((definition) => definition.operationId === 'createOffRamp');
  if (createOffRamp && isLive(createOffRamp)) {
    const payee = await call(service, 'POST', '/treasury/beneficiaries', {
      apiKey: a.apiKey,
      body: { name: 'Isolation Payee', accountId: 'DE89370400440532013000', bic: 'COBADEFFXXX', bankName: 'Commerzbank', city: 'Köln', addressLine: 'Hohenzollernring 52', country: 'DE', currency: 'EUR' },
    });
    expect(payee.status, JSON.stringify(payee.body)).toBe(201);
    const offRamp = await call(service, 'POST', '/treasury/offramp', {
      apiKey: a.apiKey,
      body: { idempotencyKey: `iso-ofr-${Date.now().toString(36)}`, amount: { amount: '15.00', currency: 'USDC' }, beneficiaryId: payee.body.id },
    });
    expect(offRamp.status, JSON.stringify(offRamp.body)).toBe(202);
    realIds.offRampId = [offRamp.body.offRampId];
  }

  // A's deposits, once on-ramps are built: a wire that started one by itself, and a PIX code A paid (both finish on their own).
  const createPixOnRamp = routes.find((definition) => definition.operationId === 'createPixOnRamp');
  if (createPixOnRamp && isLive(createPixOnRamp)) {
    const wired = await call(service, 'POST', '/treasury/onramps/simulate-wire', { apiKey: a.apiKey, body: { amount: { amount: '25.00', currency: 'USD' } } });
    expect(wired.status, JSON.stringify(wired.body)).toBe(202);
    const pix = await call(service, 'POST', '/treasury/onramp/pix', { apiKey: a.apiKey, body: { idempotencyKey: `iso-pix-${Date.now().toString(36)}`, amount: { amount: '50.00' } } });
    expect(pix.status, JSON.stringify(pix.body)).toBe(202);
    expect((await call(service, 'POST', `/treasury/onramp/${pix.body.onRampId}/simulate-payment`, { apiKey: a.apiKey })).status).toBe(202);
    realIds.onRampId = [wired.body.onRampId, pix.body.onRampId];
  }

  // A's webhook events, once webhooks are built: A's payment above makes them (kept with no endpoint registered).
  const listEvents = routes.find((definition) => definition.operationId === 'listEvents');
  if (listEvents && isLive(listEvents)) {
    const listed = await until(async () => (await call(service, 'GET', '/events', { apiKey: a.apiKey })).body, (body) => body.events.length > 0, { what: "A's webhook events" });
    realIds.eventId = listed.events.map((event: { id: string }) => event.id);
  }
});

afterAll(async () => {
  await service?.stop();
});

describe("another organization's resource is 404, identical to one that does not exist", () => {
  it('the walk covers routes with ids', () => {
    expect(withId.length).toBeGreaterThan(10);
    expect(withId.filter(isLive).length).toBeGreaterThan(0);
  });

  it.each(withId.map((definition) => [routeKey(definition), definition] as const))('%s', async (_key, definition) => {
    const params = paramsOf(definition);
    for (const param of params) {
      if (isLive(definition)) {
        expect(realIds[param], `${routeKey(definition)} is built: make organization A's ${param} in this test's setup`).toBeDefined();
      }
    }
    const hasBody = definition.request?.body !== undefined;
    if (hasBody && isLive(definition)) {
      expect(sampleBodies[definition.operationId], `${routeKey(definition)} is built: give it a valid body in sampleBodies`).toBeDefined();
    }
    const body = hasBody ? (sampleBodies[definition.operationId] ?? {}) : definition.method === 'POST' ? {} : undefined;
    const choices = params.map((param) => realIds[param] ?? [undefined]);
    // Every real id of every parameter (today's routes have one parameter each).
    const combinations = choices.reduce<(string | undefined)[][]>((all, options) => all.flatMap((prefix) => options.map((option) => [...prefix, option])), [[]]);
    for (const combination of combinations) {
      const real = Object.fromEntries(params.map((param, index) => [param, combination[index] ?? `${param}-of-a-0001`]));
      const fake = Object.fromEntries(params.map((param, index) => [param, nonexistent(combination[index], param)]));
      const asB = await call(service, definition.method, pathWith(definition, real), { apiKey: b.apiKey, ...(body === undefined ? {} : { body }) });
      const missing = await call(service, definition.method, pathWith(definition, fake), { apiKey: b.apiKey, ...(body === undefined ? {} : { body }) });
      const label = `${routeKey(definition)} ${JSON.stringify(real)}: ${asB.status} ${JSON.stringify(asB.body)}`;
      expect(asB.status, label).not.toBe(403);
      expect(asB.status, label).not.toBe(200);
      expect(asB.status, label).toBeGreaterThanOrEqual(400);
      expect(asB.body, label).toEqual(missing.body);
      expect(asB.status, label).toBe(missing.status);
      if (isLive(definition)) {
        expect(asB.status, label).toBe(404);
        expect(asB.body, label).toEqual({ error: 'not_found', message: expect.any(String) });
      }
    }
  });

  it("nothing of A's changed, and A still reaches every one of them", async () => {
    expect((await call(service, 'GET', '/members', { apiKey: a.apiKey })).body).toEqual(membersBefore);
    if (recipientsBefore !== undefined) expect((await call(service, 'GET', '/recipients', { apiKey: a.apiKey })).body).toEqual(recipientsBefore);
    const transaction = await call(service, 'GET', `/transactions/${realIds.transactionId![0]}`, { apiKey: a.apiKey });
    expect(transaction.status).toBe(200);
    for (const memberId of realIds.memberId!) {
      const changed = await call(service, 'PATCH', `/members/${memberId}`, { apiKey: a.apiKey, body: { role: 'viewer' } });
      expect(changed.status).toBe(200);
    }
  });
});
