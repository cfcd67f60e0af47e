import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { deepStrict, strictly as parseStrictly } from '../support/strictSchema.ts';
import { parseDecimal } from '#domain/money.ts';
import { useCustodyProvider } from '#providers/custody.ts';
import { useIssuerProvider } from '#providers/issuers.ts';
import { applyMovement, creditDeposit, readBalance } from '#store/ledger.ts';
import { createOrganization, setRateLimit } from '#store/organizations.ts';
import { NotImplementedBody } from '#schemas/errors.ts';
import {
  createWalletTransfer, createWireTransfer, getWallet, getWalletBalances, listIssuerAccounts, listIssuers, listWallets, mintAtIssuer,
  notImplementedHandler, routeKey, type RouteDefinition,
} from '#contract/routes.ts';

/**
 * Balance and wallets (issue 4): the wallet reads, the custody provider's balance report, the issuer
 * catalogue and accounts, and the three endpoints the contract does not offer. Every body is parsed
 * with its route's own response schema made strict, so an undocumented field fails the test.
 */
let service: LocalService;
let org: TestOrganization;
let other: TestOrganization;
/** The last block stops the simulated service to start a sandbox one in its place. */
let simulatedStopped = false;


function strictly(definition: RouteDefinition, body: unknown) {
  return parseStrictly(deepStrict(definition.responses[200]!.schema!), body);
}

async function read(definition: RouteDefinition, path: string, apiKey = org.apiKey) {
  const response = await call(service, 'GET', path, { apiKey });
  expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(200);
  return strictly(definition, response.body);
}

const usdc = (text: string) => parseDecimal(text, 6);
const notOffered = [createWalletTransfer, mintAtIssuer, createWireTransfer];

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Wallet Org');
  other = await createTestOrganization(service, 'approved', 'Other Wallet Org');
  for (const { organizationId } of [org, other]) await setRateLimit(organizationId, 'read', { burst: 1000, perSecond: 200 });
});

afterAll(async () => {
  if (!simulatedStopped) await service?.stop();
});

describe('GET /wallets and GET /wallets/:walletId', () => {
  it('lists the home wallet, opened at the custody provider, with count and no balances', async () => {
    const body = await read(listWallets, '/wallets');
    expect(body.count).toBe(1);
    expect(body.accounts).toHaveLength(1);
    expect(body.accounts[0]).toEqual({
      id: org.homeWalletId,
      kind: 'wallet',
      provider: 'simulated-custody',
      externalId: expect.stringMatching(/^sim-wal-[0-9a-f]{24}$/),
      label: expect.toBeOneOf([null, expect.any(String)]),
      currencies: ['USDC'],
      address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      chain: 'base',
      status: 'active',
      createdAt: expect.any(String),
    });
  });

  it('answers one wallet by its service id and by its externalId, the same body', async () => {
    const [listed] = (await read(listWallets, '/wallets')).accounts;
    const byId = await read(getWallet, `/wallets/${org.homeWalletId}`);
    const byExternalId = await read(getWallet, `/wallets/${encodeURIComponent(listed.externalId)}`);
    expect(byId).toEqual(listed);
    expect(byExternalId).toEqual(listed);
  });

  it("another organization's wallet is 404, identical to one that does not exist, by either id", async () => {
    const [theirs] = (await read(listWallets, '/wallets', other.apiKey)).accounts;
    expect(theirs.id).toBe(other.homeWalletId);
    const missing = await call(service, 'GET', `/wallets/wal_${'0'.repeat(26)}`, { apiKey: org.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'not_found', message: expect.any(String) });
    for (const id of [theirs.id, theirs.externalId]) {
      for (const suffix of ['', '/balances']) {
        const asked = await call(service, 'GET', `/wallets/${encodeURIComponent(id)}${suffix}`, { apiKey: org.apiKey });
        expect(asked.status, `${id}${suffix}`).toBe(404);
        expect(asked.body, `${id}${suffix}`).toEqual(missing.body);
      }
    }
    // Their list holds only their own wallet, and ours only ours.
    expect((await read(listWallets, '/wallets')).accounts.map((wallet: { id: string }) => wallet.id)).toEqual([org.homeWalletId]);
  });

  it('shows a wallet the custody provider has not opened yet as provisioning, and has no balance report for it', async () => {
    // Created without its provisioning workflow: the home wallet stays `provisioning`.
    const created = await createOrganization({ name: 'Provisioning Org', kybStatus: 'approved', environment: 'simulated' });
    const apiKey = created.apiKey.apiKey;
    const body = await read(listWallets, '/wallets', apiKey);
    expect(body).toEqual({
      count: 1,
      accounts: [
        {
          id: created.organization.homeWalletId, kind: 'wallet', provider: 'simulated-custody', externalId: null, label: expect.toBeOneOf([null, expect.any(String)]),
          currencies: ['USDC'], address: null, chain: null, status: 'provisioning', createdAt: expect.any(String),
        },
      ],
    });
    expect(await read(getWallet, `/wallets/${created.organization.homeWalletId}`, apiKey)).toEqual(body.accounts[0]);
    const balances = await call(service, 'GET', `/wallets/${created.organization.homeWalletId}/balances`, { apiKey });
    expect(balances.status).toBe(503);
    expect(balances.body).toEqual({ error: 'unavailable', message: expect.any(String) });
  });
});

describe('GET /wallets/:walletId/balances', () => {
  async function reported(walletId = org.homeWalletId) {
    const body = await read(getWalletBalances, `/wallets/${encodeURIComponent(walletId)}/balances`);
    expect(body.walletId).toBe(org.homeWalletId);
    return body.balances as { asset: string; amount: string; scale: number; chain: string | null }[];
  }

  it('reports an empty home wallet as zero USDC on its chain: empty, not unwired', async () => {
    expect(await reported()).toEqual([{ asset: 'USDC', amount: '0', scale: 6, chain: 'base' }]);
  });

  it("matches the ledger after a deposit, exactly, by service id and by externalId", async () => {
    await creditDeposit({ organizationId: org.organizationId, depositId: `dep-wallets-${Date.now()}`, amount: usdc('1234.567891'), rail: 'wire', memo: 'test wire' });
    const ledger = await readBalance(org.organizationId);
    expect(await reported()).toEqual([{ asset: 'USDC', amount: (ledger.available + ledger.held).toString(), scale: 6, chain: 'base' }]);
    expect((await reported())[0]!.amount).toBe('1234567891');
    const [wallet] = (await read(listWallets, '/wallets')).accounts;
    expect(await reported(wallet.externalId)).toEqual(await reported());
    await expectLedgerInvariant(org.organizationId);
  });

  it('counts USDC held for a payment in flight (still in the wallet) and not USDC settling on another network', async () => {
    const before = await reported();
    await applyMovement({
      organizationId: org.organizationId, entryId: 'payment:tx-wallets:hold', operation: { kind: 'payment', id: 'tx-wallets' }, memo: 'hold',
      legs: [{ account: 'available', amount: -usdc('4.5') }, { account: 'held', amount: usdc('4.5') }],
    });
    await applyMovement({
      organizationId: org.organizationId, entryId: 'deposit:dep-wallets-chain:arrive', operation: { kind: 'deposit', id: 'dep-wallets-chain' }, memo: 'arriving elsewhere',
      legs: [{ account: 'external:chain', amount: -usdc('7') }, { account: 'settling', amount: usdc('7') }],
    });
    expect(await reported()).toEqual(before);
    const ledger = await readBalance(org.organizationId);
    expect(ledger.held).toBe(usdc('4.5'));
    expect((await reported())[0]!.amount).toBe((ledger.available + ledger.held).toString());
    await expectLedgerInvariant(org.organizationId);
  });
});

describe('GET /issuers and GET /issuers/accounts', () => {
  it('lists the simulated issuer catalogue with count', async () => {
    const body = await read(listIssuers, '/issuers');
    expect(body).toEqual({
      issuers: [{ id: 'sim-circle', name: 'Circle (simulated)', currencies: ['USDC', 'EURC'], chains: ['base', 'ethereum'] }],
      count: 1,
    });
  });

  it('lists the organization’s issuer accounts: none held, a true answer with count 0', async () => {
    expect(await read(listIssuerAccounts, '/issuers/accounts')).toEqual({ accounts: [], count: 0 });
  });

  it('publishes both features as simulated', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    const byName = Object.fromEntries(body.features.map((feature: { feature: string }) => [feature.feature, feature]));
    expect(byName.wallets).toMatchObject({ status: 'simulated' });
    expect(byName.issuers).toMatchObject({ status: 'simulated' });
  });
});

describe('the endpoints the contract does not offer', () => {
  it('stay on the 501 handler', () => {
    for (const definition of notOffered) expect(definition.handler, routeKey(definition)).toBe(notImplementedHandler);
  });

  it.each(notOffered.map((definition) => [routeKey(definition), definition] as const))('%s is 501 not_implemented with feature and reason, after auth', async (_key, definition) => {
    const path = definition.path.replace(/\{[^}]+\}/g, org.homeWalletId);
    const unauthenticated = await call(service, 'POST', path, { body: {} });
    expect(unauthenticated.status).toBe(401);
    for (const body of [{}, { amount: '10.00', to: `0x${'a'.repeat(40)}` }]) {
      const answered = await call(service, 'POST', path, { apiKey: org.apiKey, body });
      expect(answered.status, JSON.stringify(answered.body)).toBe(501);
      expect(parseStrictly(deepStrict(NotImplementedBody), answered.body)).toEqual({ error: 'not_implemented', feature: definition.feature, message: expect.stringMatching(/^Not offered/) });
    }
  });

  it('the wire endpoint points to off-ramps', async () => {
    const answered = await call(service, 'POST', '/banking/wire-transfers', { apiKey: org.apiKey, body: {} });
    expect(answered.body.message).toContain('POST /treasury/offramp');
  });
});

describe('bad ids', () => {
  const ids = [
    'x'.repeat(3000),
    'x'.repeat(266),
    '😀'.repeat(265),
    '✓'.repeat(265),
    'wål-ßü-✓',
    '\u0000',
    '..%2F..',
    ' ',
    'wal_01ARZ3NDEKTSV4RRFFQ69G5FAV',
  ];
  const routesWithIds = [getWallet, getWalletBalances, createWalletTransfer];

  it.each(routesWithIds.map((definition) => [routeKey(definition), definition] as const))('%s answers 4xx (or the 501 of a route not offered), never 500', async (_key, definition) => {
    for (const id of ids) {
      const path = definition.path.replace('{walletId}', encodeURIComponent(id));
      const answered = await call(service, definition.method, path, { apiKey: org.apiKey, ...(definition.method === 'POST' ? { body: {} } : {}) });
      const label = `${routeKey(definition)} ${JSON.stringify(id.slice(0, 20))}… (${id.length}): ${answered.status} ${JSON.stringify(answered.body).slice(0, 200)}`;
      expect(answered.body, label).toMatchObject({ error: expect.any(String), message: expect.any(String) });
      if (definition.handler === notImplementedHandler) {
        expect([400, 501], label).toContain(answered.status);
      } else {
        expect(answered.status, label).toBeGreaterThanOrEqual(400);
        expect(answered.status, label).toBeLessThan(500);
      }
      if (answered.status === 400) expect(answered.body.error, label).toBe('validation');
    }
  });

  it('ids that are not valid UTF-8 once decoded are 4xx, never 500', async () => {
    for (const raw of ['%FF', '%ED%A0%80', '%C0%AF', '%']) {
      for (const suffix of ['', '/balances']) {
        const answered = await call(service, 'GET', `/wallets/${raw}${suffix}`, { apiKey: org.apiKey });
        const label = `${raw}${suffix}: ${answered.status} ${JSON.stringify(answered.body)}`;
        expect(answered.status, label).toBeGreaterThanOrEqual(400);
        expect(answered.status, label).toBeLessThan(500);
      }
    }
  });
});

describe('on an environment with no custody or issuer adapter', () => {
  let sandbox: LocalService;
  let apiKey: string;
  let walletId: string;

  beforeAll(async () => {
    await service.stop();
    simulatedStopped = true;
    // The simulators chosen while `simulated` ran are forgotten, as in a fresh sandbox process.
    useCustodyProvider(undefined);
    useIssuerProvider(undefined);
    sandbox = await startTestService('sandbox');
    const onboarded = await onboardOrganization({ name: 'Sandbox Wallet Org', kybStatus: 'approved' });
    apiKey = onboarded.apiKey.apiKey;
    walletId = onboarded.organization.homeWalletId;
  });

  afterAll(async () => {
    await sandbox?.stop();
    useCustodyProvider(undefined);
    useIssuerProvider(undefined);
    process.env.SERVICE_ENVIRONMENT = 'simulated';
  });

  it('every wallet and issuer read is 501 naming its feature: never an empty list', async () => {
    for (const [path, feature] of [
      ['/wallets', 'wallets'],
      [`/wallets/${walletId}`, 'wallets'],
      [`/wallets/${walletId}/balances`, 'wallets'],
      ['/issuers', 'issuers'],
      ['/issuers/accounts', 'issuers'],
    ] as const) {
      const answered = await call(sandbox, 'GET', path, { apiKey });
      expect(answered.status, `${path}: ${JSON.stringify(answered.body)}`).toBe(501);
      expect(parseStrictly(deepStrict(NotImplementedBody), answered.body)).toMatchObject({ error: 'not_implemented', feature });
    }
    const { body } = await call(sandbox, 'GET', '/capabilities');
    const byName = Object.fromEntries(body.features.map((entry: { feature: string }) => [entry.feature, entry]));
    expect(byName.wallets.status).toBe('planned');
    expect(byName.issuers.status).toBe('planned');
  });

  it('the endpoints not offered are 501 here too, with the same reason', async () => {
    for (const definition of notOffered) {
      const answered = await call(sandbox, 'POST', definition.path.replace(/\{[^}]+\}/g, walletId), { apiKey, body: {} });
      expect(answered.status, routeKey(definition)).toBe(501);
      expect(answered.body).toEqual({ error: 'not_implemented', feature: definition.feature, message: expect.stringMatching(/^Not offered/) });
    }
    const { body } = await call(sandbox, 'GET', '/capabilities');
    for (const definition of notOffered) {
      expect(body.features.find((entry: { feature: string }) => entry.feature === definition.feature).reason).toMatch(/^Not offered, on any environment/);
    }
  });
});
