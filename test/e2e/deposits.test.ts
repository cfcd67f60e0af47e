import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { reloadConfig } from '#platform/config.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { addApiKey } from '#store/organizations.ts';
import { getWallet } from '#store/wallets.ts';
import { parseDepositReference } from '#domain/depositReference.ts';
import { isValidIban } from '#domain/houseAccounts.ts';
import { addressFormatOf, isAddressOn } from '#domain/networks.ts';
import { crossingFees } from '#domain/pricing.ts';
import { useCustodyProvider } from '#providers/custody.ts';
import { getCryptoDeposit, getDepositInstructions } from '#contract/routes.ts';
import { deepStrict, strictly } from '../support/strictSchema.ts';

let service: LocalService;
let org: TestOrganization;
let other: TestOrganization;

const instructionsSchema = deepStrict(getDepositInstructions.responses[200]!.schema!);
const cryptoSchema = deepStrict(getCryptoDeposit.responses[200]!.schema!);


/** Every string anywhere in the body, with its path. */
function strings(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (Array.isArray(value)) return value.flatMap((entry, index) => strings(entry, `${path}[${index}]`));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([name, entry]) => strings(entry, `${path}.${name}`));
  return [];
}

const instructions = (apiKey: string) => call(service, 'GET', '/treasury/deposit-instructions', { apiKey });
const cryptoDeposit = (apiKey: string) => call(service, 'GET', '/treasury/crypto-deposit', { apiKey });

/** Runs with HOUSE_ACCOUNTS set (or unset, for undefined) in this process, where the service's handlers run. */
async function withHouseAccounts<T>(value: string | undefined, run: () => Promise<T>): Promise<T> {
  const before = process.env.HOUSE_ACCOUNTS;
  if (value === undefined) delete process.env.HOUSE_ACCOUNTS;
  else process.env.HOUSE_ACCOUNTS = value;
  reloadConfig();
  try {
    return await run();
  } finally {
    if (before === undefined) delete process.env.HOUSE_ACCOUNTS;
    else process.env.HOUSE_ACCOUNTS = before;
    reloadConfig();
  }
}

beforeAll(async () => {
  delete process.env.HOUSE_ACCOUNTS;
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Deposit Org');
  other = await createTestOrganization(service, 'approved', 'Other Deposit Org');
});

afterAll(async () => {
  await service?.stop();
});

describe('GET /treasury/deposit-instructions', () => {
  it('is 403 kyb_required until the organization passes KYB', async () => {
    const pending = await createTestOrganization(service, 'pending', 'Pending Deposit Org');
    const answer = await instructions(pending.apiKey);
    expect(answer.status).toBe(403);
    expect(answer.body).toEqual({ error: 'kyb_required', message: expect.any(String) });
  });

  it('gives one stable reference with a check character that names the organization, and the accounts with no empty field', async () => {
    const first = await instructions(org.apiKey);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const body = strictly(instructionsSchema, first.body);
    expect(parseDepositReference(body.reference)).toEqual({ reference: body.reference, organizationId: org.organizationId });

    // Simulated: both currencies, each at most once, every field held and non-empty.
    expect(body.accounts.map((account: { currency: string }) => account.currency).sort()).toEqual(['EUR', 'USD']);
    for (const [path, value] of strings(body.accounts)) expect(value.trim(), path).not.toBe('');
    for (const account of body.accounts) {
      expect(account.iban ?? account.accountNumber, JSON.stringify(account)).toBeDefined();
      if (account.iban) expect(isValidIban(account.iban)).toBe(true);
      for (const value of Object.values(account)) expect(value).not.toBeNull();
    }

    // The same reference on every call and for every key of the organization; another organization has its own.
    const again = await instructions(org.apiKey);
    expect(again.body).toEqual(first.body);
    const viewer = await addApiKey(org.organizationId, { role: 'viewer', environment: 'simulated' });
    expect((await instructions(viewer.apiKey)).body.reference).toBe(body.reference);
    const theirs = strictly(instructionsSchema, (await instructions(other.apiKey)).body);
    expect(theirs.reference).not.toBe(body.reference);
    expect(parseDepositReference(theirs.reference)?.organizationId).toBe(other.organizationId);
    expect(theirs.accounts).toEqual(body.accounts);
  });

  it('a mangled reference names no organization', async () => {
    const { reference } = (await instructions(org.apiKey)).body as { reference: string };
    const last = reference.at(-1)!;
    expect(parseDepositReference(`${reference.slice(0, -1)}${last === '0' ? '1' : '0'}`)).toBeUndefined();
    expect(parseDepositReference(`${reference.slice(0, 5)}${reference[6]}${reference[5]}${reference.slice(7)}`)).toBeUndefined();
  });

  it('shows the configured accounts: only the fields held, only the currencies configured', async () => {
    const configured = JSON.stringify([
      { currency: 'EUR', accountName: 'Cross-Border Payments Ltd', bankName: '  ', iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeffxxx', bankAddress: '' },
    ]);
    await withHouseAccounts(configured, async () => {
      const answer = await instructions(org.apiKey);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      const body = strictly(instructionsSchema, answer.body);
      expect(body.accounts).toEqual([
        { currency: 'EUR', accountName: 'Cross-Border Payments Ltd', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX' },
      ]);
    });
  });

  it('with no house account configured answers 501 not_implemented with a reason, never an empty list', async () => {
    await withHouseAccounts('[]', async () => {
      const answer = await instructions(org.apiKey);
      expect(answer.status).toBe(501);
      expect(answer.body).toEqual({ error: 'not_implemented', feature: 'deposit-instructions', message: expect.stringMatching(/house bank account/) });
    });
    // And back once configuration is restored.
    expect((await instructions(org.apiKey)).status).toBe(200);
  });
});

describe('GET /treasury/crypto-deposit', () => {
  it('lists the home network once, home, on the home wallet’s chain and address, and the crossings with their fee', async () => {
    const answer = await cryptoDeposit(org.apiKey);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const body = strictly(cryptoSchema, answer.body);
    const wallet = (await getWallet(org.organizationId, org.homeWalletId))!;
    expect(body.currency).toBe('USDC');
    expect(body.quotedAt).toEqual({ amount: expect.stringMatching(/^[1-9]\d*$/), currency: 'USDC', scale: 6 });

    const homes = body.networks.filter((network: { home: boolean }) => network.home);
    expect(homes).toHaveLength(1);
    expect(homes[0]).toMatchObject({ network: wallet.chain, address: wallet.address, fee: { amount: '0', currency: 'USDC', scale: 6 } });

    // Every network a crossing from home is priced for, once, with the very figure quotes charge.
    const listed = body.networks.map((network: { network: string }) => network.network);
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.slice(1).sort()).toEqual(Object.keys(crossingFees[wallet.chain!]!).sort());
    for (const network of body.networks) {
      const label = JSON.stringify(network);
      expect(isAddressOn(network.network, network.address), label).toBe(true);
      if (network.home) continue;
      expect(network.fee, label).toEqual({ amount: crossingFees[wallet.chain!]![network.network]!.toString(), currency: 'USDC', scale: 6 });
      expect(network.feeUnavailable, label).toBeUndefined();
      if (addressFormatOf(network.network) === 'evm') expect(network.address, label).toBe(wallet.address);
    }

    // Solana and Tron: their own addresses, in their own formats.
    const byNetwork = Object.fromEntries(body.networks.map((network: { network: string; address: string }) => [network.network, network.address]));
    expect(byNetwork.solana).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(byNetwork.tron).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
    expect(new Set([byNetwork.solana, byNetwork.tron, wallet.address]).size).toBe(3);
    // Not one address for all networks, so no top-level address.
    expect(body.address).toBeUndefined();
  });

  it('is stable, per organization, and open to every role and to an organization still in KYB', async () => {
    const first = (await cryptoDeposit(org.apiKey)).body;
    expect((await cryptoDeposit(org.apiKey)).body).toEqual(first);
    const viewer = await addApiKey(org.organizationId, { role: 'viewer', environment: 'simulated' });
    expect((await cryptoDeposit(viewer.apiKey)).body).toEqual(first);

    const theirs = strictly(cryptoSchema, (await cryptoDeposit(other.apiKey)).body);
    const mine = new Set(first.networks.map((network: { address: string }) => network.address));
    for (const network of theirs.networks) expect(mine.has(network.address), network.network).toBe(false);

    const pending = await createTestOrganization(service, 'pending', 'Pending Crypto Org');
    expect((await cryptoDeposit(pending.apiKey)).status).toBe(200);
  });

  it('is 422 no_home_wallet for an organization without a home wallet', async () => {
    const homeless = await createTestOrganization(service, 'approved', 'Homeless Org');
    await dynamo().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.wallet(homeless.organizationId, homeless.homeWalletId), UpdateExpression: 'REMOVE home' }),
    );
    const answer = await cryptoDeposit(homeless.apiKey);
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: 'no_home_wallet', message: expect.any(String) });
  });

  it('is 422 no_home_wallet while the home wallet is still being opened: it has no address to show', async () => {
    const opening = await createTestOrganization(service, 'approved', 'Opening Org');
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.wallet(opening.organizationId, opening.homeWalletId),
        UpdateExpression: 'SET #status = :provisioning, address = :none',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':provisioning': 'provisioning', ':none': null },
      }),
    );
    const answer = await cryptoDeposit(opening.apiKey);
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ error: 'no_home_wallet', message: expect.stringMatching(/being opened/) });
  });
});

// Last in the file: it replaces the simulated service with a sandbox one.
describe('on sandbox, with no provider adapter and no house account configured', () => {
  let apiKey: string;

  beforeAll(async () => {
    await service.stop();
    // The simulated custodian this process installed on first use belongs to the simulated service.
    useCustodyProvider(undefined);
    service = await startTestService('sandbox');
    apiKey = (await onboardOrganization({ name: 'Sandbox Deposit Org', kybStatus: 'approved' })).apiKey.apiKey;
  });

  afterAll(() => {
    process.env.SERVICE_ENVIRONMENT = 'simulated';
    reloadConfig();
    useCustodyProvider(undefined);
  });

  it('both endpoints answer 501 naming their feature, never simulated bank details or addresses', async () => {
    const bank = await instructions(apiKey);
    expect(bank.status).toBe(501);
    expect(bank.body).toMatchObject({ error: 'not_implemented', feature: 'deposit-instructions' });
    const chain = await cryptoDeposit(apiKey);
    expect(chain.status).toBe(501);
    expect(chain.body).toMatchObject({ error: 'not_implemented', feature: 'crypto-deposit' });
    // And the capabilities say so, instead of calling them live.
    const { body } = await call(service, 'GET', '/capabilities');
    const status = Object.fromEntries(body.features.map((f: { feature: string; status: string }) => [f.feature, f.status]));
    expect(status['deposit-instructions']).toBe('planned');
    expect(status['crypto-deposit']).toBe('planned');
  });

  it('configured house accounts are shown there as anywhere', async () => {
    const configured = JSON.stringify([{ currency: 'USD', accountName: 'Cross-Border Payments Inc', accountNumber: '000123456789', bic: 'CHASUS33' }]);
    await withHouseAccounts(configured, async () => {
      const answer = await instructions(apiKey);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(strictly(instructionsSchema, answer.body).accounts).toEqual([JSON.parse(configured)[0]]);
    });
  });
});

afterEach(() => {
  expect(process.env.HOUSE_ACCOUNTS).toBeUndefined();
});
