import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { onboardOrganization, openingDepositId } from '../../lib/ops/onboarding.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { applyMovement, creditDeposit, listJournalEntries } from '#store/ledger.ts';
import { addApiKey } from '#store/organizations.ts';
import { dynamoExact } from '#store/client.ts';
import { parseDecimal } from '#domain/money.ts';
import { getBalance } from '#contract/routes.ts';
import { features } from '#contract/features.ts';
import { deepStrict, strictly } from '../support/strictSchema.ts';

let service: LocalService;
let org: TestOrganization;

const usdc = (text: string) => parseDecimal(text, 6);
/** The route's own schema, strict: the body has exactly the documented fields. */
const parseStrict = (body: unknown) => strictly(deepStrict(getBalance.responses[200]!.schema!), body);

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
});

afterAll(async () => {
  await service?.stop();
});

describe('GET /balance', () => {
  it('a new organization has 0 available, 0 settling, 0 in total', async () => {
    const before = Date.now();
    const { status, body } = await call(service, 'GET', '/balance', { apiKey: org.apiKey });
    expect(status).toBe(200);
    expect(body).toEqual({
      currency: 'USDC', scale: 6, available: '0', settling: '0', total: '0', complete: true, reportedAt: expect.any(String),
    });
    expect(() => parseStrict(body)).not.toThrow();
    expect(Date.parse(body.reportedAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('answers a deposit exactly, to the last minor unit', async () => {
    await creditDeposit({ organizationId: org.organizationId, depositId: 'dep-e2e-1', amount: usdc('12.345678'), rail: 'wire', memo: 'test wire' });
    const { status, body } = await call(service, 'GET', '/balance', { apiKey: org.apiKey });
    expect(status).toBe(200);
    expect(body).toMatchObject({ currency: 'USDC', scale: 6, available: '12345678', settling: '0', total: '12345678', complete: true });
    expect(() => parseStrict(body)).not.toThrow();
    await expectLedgerInvariant(org.organizationId);
  });

  it('total is available plus settling; what is held for payments in flight is not shown', async () => {
    const { organizationId } = org;
    await applyMovement({
      organizationId, entryId: 'deposit:dep-e2e-chain:arrive', operation: { kind: 'deposit', id: 'dep-e2e-chain' }, memo: 'arriving on another network',
      legs: [{ account: 'external:chain', amount: -usdc('1.5') }, { account: 'settling', amount: usdc('1.5') }],
    });
    await applyMovement({
      organizationId, entryId: 'payment:tx-e2e:hold', operation: { kind: 'payment', id: 'tx-e2e' }, memo: 'hold',
      legs: [{ account: 'available', amount: -usdc('2.000001') }, { account: 'held', amount: usdc('2.000001') }],
    });
    const { body } = await call(service, 'GET', '/balance', { apiKey: org.apiKey });
    expect(body).toMatchObject({ available: '10345677', settling: '1500000', total: '11845677' });
    expect(body.held).toBeUndefined();
    expect(await expectLedgerInvariant(organizationId)).toMatchObject({ held: usdc('2.000001') });
  });

  it('amounts past what a double holds come through the API exactly', async () => {
    const rich = await createTestOrganization(service, 'approved', 'Rich Org');
    await creditDeposit({ organizationId: rich.organizationId, depositId: 'dep-huge', amount: 10n ** 20n + 7n, rail: 'wire', memo: 'huge' });
    const { body } = await call(service, 'GET', '/balance', { apiKey: rich.apiKey });
    expect(body).toMatchObject({ available: '100000000000000000007', total: '100000000000000000007' });
  });

  it('any role can read it, and it is scoped to the key’s organization', async () => {
    const viewer = await addApiKey(org.organizationId, { role: 'viewer', environment: 'simulated' });
    expect((await call(service, 'GET', '/balance', { apiKey: viewer.apiKey })).body.available).toBe('10345677');
    const other = await createTestOrganization(service, 'pending', 'Other Org');
    expect((await call(service, 'GET', '/balance', { apiKey: other.apiKey })).body).toMatchObject({ available: '0', total: '0' });
    expect((await call(service, 'GET', '/balance')).status).toBe(401);
  });

  it('an organization onboarded with an opening deposit sees it, journaled as a wire deposit', async () => {
    const created = await onboardOrganization({ name: 'Opened Org', kybStatus: 'approved', openingDeposit: usdc('10000') });
    await service.runner.waitFor(created.walletExecution);
    const { body } = await call(service, 'GET', '/balance', { apiKey: created.apiKey.apiKey });
    expect(body).toMatchObject({ available: '10000000000', settling: '0', total: '10000000000' });
    const [entry] = await listJournalEntries(created.organization.id);
    expect(entry).toMatchObject({
      entryId: `deposit:${openingDepositId(created.organization.id)}:credit`,
      memo: 'simulated opening wire deposit',
      legs: [{ account: 'external:wire', amount: -usdc('10000') }, { account: 'available', amount: usdc('10000') }],
    });
    await expectLedgerInvariant(created.organization.id);
  });

  it('a read that fails is 503 unavailable, never a figure shown as complete', async () => {
    const name = 'testBalanceReadFails';
    dynamoExact().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetItemCommand') throw Object.assign(new Error('simulated outage'), { name: 'InternalServerError' });
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const { status, body } = await call(service, 'GET', '/balance', { apiKey: org.apiKey });
      expect(status).toBe(503);
      expect(body).toEqual({ error: 'unavailable', message: expect.any(String) });
    } finally {
      dynamoExact().middlewareStack.remove(name);
    }
    expect((await call(service, 'GET', '/balance', { apiKey: org.apiKey })).status).toBe(200);
  });

  it('the feature is live in GET /capabilities', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    expect(body.features).toContainEqual({ feature: 'balance', ...features.balance });
    expect(features.balance.status).toBe('live');
  });
});
