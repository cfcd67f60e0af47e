import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { deepStrict, strictly } from '../support/strictSchema.ts';
import { creditDeposit, listJournalEntries, readBalance } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { crossingFees } from '#domain/pricing.ts';
import { gasWithHeadroom } from '#operations/withdrawal/pricing.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { withdrawalOutcomeBands } from '#contract/outcomeBands.ts';
import { useGasOracle } from '#providers/chain.ts';
import { SimulatedGasOracle, simulatedGasCosts } from '#simulators/chain.ts';
import { createOperation } from '#store/operations.ts';
import { withdrawalStatusView, type WithdrawalRecord } from '#operations/withdrawal/view.ts';
import { WithdrawalAccepted, WithdrawalList, WithdrawalQuote, WithdrawalStatus } from '#schemas/withdrawals.ts';

let service: LocalService;
let org: TestOrganization;
let other: TestOrganization;
let seq = 0;

const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;
/** An own address, all lower case (no checksum to check). */
const toAddress = '0x52908400098527886e0f7030069857d2e4169ee7';
/** EIP-55's own example of a checksummed address. */
const checksummed = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const fullyUpper = '0x52908400098527886E0F7030069857D2E4169EE7';

const usdc = (text: string) => BigInt(text.replace('.', '')) * 10n ** BigInt(6 - (text.split('.')[1]?.length ?? 0));

async function fund(organizationId: string, amount: bigint) {
  await creditDeposit({ organizationId, depositId: key('dep'), amount, rail: 'wire', memo: 'test deposit' });
}

async function unlimited(organizationId: string) {
  await setRateLimits(organizationId, { burst: 100_000, perSecond: 10_000 });
}

function withdrawal(overrides: Record<string, unknown> = {}) {
  return { idempotencyKey: key('wd'), amount: { amount: '100.00', currency: 'USDC' }, chain: 'base', toAddress, ...overrides };
}

async function withdraw(apiKey: string, body: Record<string, unknown>) {
  return call(service, 'POST', '/treasury/withdrawals', { apiKey, body });
}

/** Polls GET /treasury/withdrawals/:id while `running`, as the contract tells integrators to. */
async function finished(apiKey: string, withdrawalId: string, timeoutMs = 20_000) {
  const body = await untilSettled(service, apiKey, `/treasury/withdrawals/${encodeURIComponent(withdrawalId)}`, timeoutMs);
  strictly(deepStrict(WithdrawalStatus), body);
  return body;
}

const states = (body: { timeline: { state: string }[] }) => body.timeline.map((entry) => entry.state);

async function transfersInBook(organizationId: string, withdrawalId: string) {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: keys.simulatedChainTransfer(`${organizationId}:${withdrawalId}`), ConsistentRead: true }),
  );
  return Item ? 1 : 0;
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  other = await createTestOrganization(service, 'approved', 'Other Org');
  await fund(org.organizationId, 100_000_000_000n);
  await fund(other.organizationId, 1_000_000_000n);
  await unlimited(org.organizationId);
  await unlimited(other.organizationId);
});

afterEach(() => useGasOracle(undefined));

afterAll(async () => {
  await service?.stop();
});

describe('capabilities', () => {
  it('lists withdrawals as simulated, on simulators only', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    const feature = body.features.find((entry: { feature: string }) => entry.feature === 'withdrawals');
    expect(feature.status).toBe('simulated');
    expect(feature.reason).toMatch(/simulated/);
  });
});

describe('GET /treasury/withdrawals/quote', () => {
  const gas = (network: string) => gasWithHeadroom(simulatedGasCosts[network]!);

  it('prices the home network with gas only, and another EVM network with the crossing fee on top', async () => {
    let answer = await call(service, 'GET', '/treasury/withdrawals/quote?amount=250.5&chain=base', { apiKey: org.apiKey });
    expect(answer.status).toBe(200);
    const home = strictly(deepStrict(WithdrawalQuote), answer.body);
    expect(home.amount).toEqual({ amount: '250500000', currency: 'USDC', scale: 6 });
    expect(home.network).toBe('base');
    expect(BigInt(home.fee.amount)).toBe(gas('base'));
    expect(BigInt(home.net.amount)).toBe(250_500_000n - gas('base'));

    answer = await call(service, 'GET', '/treasury/withdrawals/quote?amount=250.5&chain=polygon', { apiKey: org.apiKey });
    expect(answer.status).toBe(200);
    expect(BigInt(answer.body.fee.amount)).toBe(crossingFees.base!.polygon! + gas('polygon'));
    expect(BigInt(answer.body.net.amount) + BigInt(answer.body.fee.amount)).toBe(250_500_000n);
  });

  it('puts headroom on gas, rounded up, never below the estimate', () => {
    expect(gasWithHeadroom(10_000n)).toBe(15_000n);
    expect(gasWithHeadroom(3n)).toBe(5n);
  });

  it('refuses networks without EVM addresses and unlisted ones with 422 unsupported_network', async () => {
    for (const chain of ['solana', 'tron', 'bitcoin', 'arbitrum']) {
      const answer = await call(service, 'GET', `/treasury/withdrawals/quote?amount=10&chain=${chain}`, { apiKey: org.apiKey });
      expect(answer.status, chain).toBe(422);
      expect(answer.body.error).toBe('unsupported_network');
    }
  });

  it('refuses bad amounts and chains with 400 validation, an amount not above the fee included', async () => {
    const bad = [
      'amount=1.0000001&chain=base',
      'amount=abc&chain=base',
      'amount=0&chain=base',
      'amount=0.01&chain=base',
      'amount=1.75&chain=ethereum',
      'amount=10',
      'chain=base',
      `amount=10&chain=${'x'.repeat(41)}`,
      'amount=10&chain=',
    ];
    for (const query of bad) {
      const answer = await call(service, 'GET', `/treasury/withdrawals/quote?${query}`, { apiKey: org.apiKey });
      expect(answer.status, query).toBe(400);
      expect(answer.body.error, query).toBe('validation');
    }
  });

  it('answers 422 quote_unavailable when the gas price cannot be read', async () => {
    useGasOracle({ estimate: async () => { throw new ProviderUnavailable('gas oracle down'); } });
    const answer = await call(service, 'GET', '/treasury/withdrawals/quote?amount=10&chain=base', { apiKey: org.apiKey });
    expect(answer.status).toBe(422);
    expect(answer.body.error).toBe('quote_unavailable');
    const posted = await withdraw(org.apiKey, withdrawal());
    expect(posted.status).toBe(422);
    expect(posted.body.error).toBe('quote_unavailable');
  });
});

describe('a withdrawal, end to end', () => {
  it('sends to the address on the home network: SENT with a transaction hash, the balance down by the amount', async () => {
    const before = await readBalance(org.organizationId);
    const body = withdrawal({ amount: { amount: '123.45', currency: 'USDC' }, extra: 'ignored' });
    const answer = await withdraw(org.apiKey, body);
    expect(answer.status).toBe(202);
    const accepted = strictly(deepStrict(WithdrawalAccepted), answer.body);
    expect(accepted.withdrawalId).toBe(body.idempotencyKey);
    expect(accepted.amount).toEqual({ amount: '123450000', currency: 'USDC', scale: 6 });
    expect(accepted.network).toBe('base');
    expect(BigInt(accepted.net.amount) + BigInt(accepted.fee.amount)).toBe(123_450_000n);

    const done = await finished(org.apiKey, accepted.withdrawalId);
    expect(done.state).toBe('SENT');
    expect(done.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.net).toEqual(accepted.net);
    expect(states(done)).toEqual(['INITIATED', 'PULLING', 'HELD', 'SENDING', 'SENT']);
    const after = await readBalance(org.organizationId);
    expect(before.available - after.available).toBe(123_450_000n);
    expect(after.held).toBe(before.held);
    // The net went to the chain, the gas to its expense account: the journal says where each unit went.
    const sent = (await listJournalEntries(org.organizationId)).find((entry) => entry.entryId === `withdrawal:${accepted.withdrawalId}:send`)!;
    expect(sent.legs).toContainEqual({ account: 'external:chain:base', amount: BigInt(accepted.net.amount) });
    expect(sent.legs).toContainEqual({ account: 'expense:gas:base', amount: BigInt(accepted.fee.amount) });
    expect(await transfersInBook(org.organizationId, accepted.withdrawalId)).toBe(1);
    await expectLedgerInvariant(org.organizationId);
  });

  it('crosses first when the network is not home, and accepts a checksummed or all-upper address', async () => {
    for (const address of [checksummed, fullyUpper]) {
      const answer = await withdraw(org.apiKey, withdrawal({ chain: 'polygon', toAddress: address }));
      expect(answer.status).toBe(202);
      expect(BigInt(answer.body.fee.amount)).toBe(crossingFees.base!.polygon! + gasWithHeadroom(simulatedGasCosts.polygon!));
      const done = await finished(org.apiKey, answer.body.withdrawalId);
      expect(done.state).toBe('SENT');
      expect(states(done)).toEqual(['INITIATED', 'PULLING', 'HELD', 'CROSSING', 'SENDING', 'SENT']);
      const sent = (await listJournalEntries(org.organizationId)).find((entry) => entry.entryId === `withdrawal:${answer.body.withdrawalId}:send`)!;
      expect(sent.legs).toContainEqual({ account: 'expense:network-fees', amount: crossingFees.base!.polygon! });
    }
    await expectLedgerInvariant(org.organizationId);
  });
});

describe('a request that died between its commit and the start of its workflow', () => {
  it('is started from its withdrawal.initiated event and runs to SENT', async () => {
    // What POST leaves behind when the process dies right after the commit: the record and its event, no execution.
    const id = key('wd-orphan');
    const at = new Date().toISOString();
    const record: WithdrawalRecord = {
      organizationId: org.organizationId, kind: 'withdrawal', id, status: 'INITIATED', requestHash: 'h', timeline: [{ status: 'INITIATED', at }],
      createdAt: at, updatedAt: at, amount: '30000000', network: 'base', homeNetwork: 'base', toAddress, crossingFee: '0', gasFee: '15000',
      fee: '15000', net: '29985000', sendAttempts: 0, transferId: null, txHash: null,
    };
    await createOperation(record, { event: { type: 'withdrawal.initiated', data: withdrawalStatusView(record) } });
    const done = await finished(org.apiKey, id);
    expect(done.state).toBe('SENT');
    await expectLedgerInvariant(org.organizationId);
  });
});

describe('outcome bands', () => {
  it('exports its bands, one per distinct path', () => {
    expect(withdrawalOutcomeBands.map((band) => band.cents)).toEqual([91, 92, 93, 94, 95]);
  });

  it.each([
    ['100.91', 'FAILED', ['INITIATED', 'PULLING', 'HELD', 'SENDING', 'FAILED'], 0n, 0],
    ['100.92', 'RETURNED', ['INITIATED', 'PULLING', 'HELD', 'SENDING', 'RETURNING', 'RETURNED'], 0n, 1],
    ['100.93', 'SENT', ['INITIATED', 'PULLING', 'HELD', 'SENDING', 'PENDING_RETRY', 'SENDING', 'PENDING_RETRY', 'SENDING', 'SENT'], 100_930_000n, 1],
    ['100.94', 'IN_DOUBT', ['INITIATED', 'PULLING', 'HELD', 'SENDING', 'IN_DOUBT'], 100_940_000n, 0],
    ['100.95', 'NEEDS_ATTENTION', ['INITIATED', 'PULLING', 'HELD', 'SENDING', 'NEEDS_ATTENTION'], 100_950_000n, 1],
  ])('%s USDC ends %s', async (amount, state, timeline, leavesAvailable, transfers) => {
    const before = await readBalance(org.organizationId);
    const answer = await withdraw(org.apiKey, withdrawal({ amount: { amount, currency: 'USDC' } }));
    expect(answer.status).toBe(202);
    const done = await finished(org.apiKey, answer.body.withdrawalId);
    expect(done.state).toBe(state);
    expect(states(done)).toEqual(timeline);
    expect(done.txHash === undefined).toBe(state !== 'SENT');
    const after = await readBalance(org.organizationId);
    expect(before.available - after.available).toBe(leavesAvailable);
    // Parked for a person: the funds stay held, not spent, not released.
    expect(after.held - before.held).toBe(state === 'IN_DOUBT' || state === 'NEEDS_ATTENTION' ? usdc(amount) : 0n);
    expect(await transfersInBook(org.organizationId, answer.body.withdrawalId)).toBe(transfers);
    await expectLedgerInvariant(org.organizationId);
  });
});

describe('idempotency', () => {
  it('answers a repeat with the stored figures, even when the gas price moved, and sends once', async () => {
    const body = withdrawal({ amount: { amount: '40', currency: 'USDC' } });
    const first = await withdraw(org.apiKey, body);
    expect(first.status).toBe(202);
    await finished(org.apiKey, body.idempotencyKey);
    const before = await readBalance(org.organizationId);
    useGasOracle({ estimate: async (network) => (await new SimulatedGasOracle().estimate(network)) * 7n });
    // The same request, spelled differently: "40.000000", the address in upper case, an ignored field.
    const again = await withdraw(org.apiKey, { ...body, amount: { amount: '40.000000', currency: 'USDC' }, toAddress: fullyUpper, note: 'x' });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(await readBalance(org.organizationId)).toEqual(before);
    expect(await transfersInBook(org.organizationId, body.idempotencyKey)).toBe(1);
    await expectLedgerInvariant(org.organizationId);
  });

  it('refuses the same key with another amount, network or address (409 idempotency_key_reused)', async () => {
    const body = withdrawal({ amount: { amount: '41', currency: 'USDC' } });
    expect((await withdraw(org.apiKey, body)).status).toBe(202);
    for (const changed of [
      { amount: { amount: '41.01', currency: 'USDC' } },
      { chain: 'polygon' },
      { toAddress: checksummed },
    ]) {
      const answer = await withdraw(org.apiKey, { ...body, ...changed });
      expect(answer.status, JSON.stringify(changed)).toBe(409);
      expect(answer.body.error).toBe('idempotency_key_reused');
    }
    await finished(org.apiKey, body.idempotencyKey);
  });

  it("refuses another organization's key with 409 idempotency_key_conflict, and shows it nothing", async () => {
    const body = withdrawal({ amount: { amount: '42', currency: 'USDC' } });
    expect((await withdraw(org.apiKey, body)).status).toBe(202);
    const answer = await withdraw(other.apiKey, body);
    expect(answer.status).toBe(409);
    expect(answer.body.error).toBe('idempotency_key_conflict');
    expect(JSON.stringify(answer.body)).not.toContain(org.organizationId);
    const read = await call(service, 'GET', `/treasury/withdrawals/${body.idempotencyKey}`, { apiKey: other.apiKey });
    expect(read.status).toBe(404);
    expect(read.body.error).toBe('not_found');
    await finished(org.apiKey, body.idempotencyKey);
    await expectLedgerInvariant(other.organizationId);
  });
});

describe('concurrent withdrawals over the balance', () => {
  it('holds only those that fit; the others fail with nothing moved; the balance never goes negative', async () => {
    const small = await createTestOrganization(service, 'approved', 'Small Org');
    await unlimited(small.organizationId);
    await fund(small.organizationId, 250_000_000n);
    const bodies = Array.from({ length: 6 }, () => withdrawal({ amount: { amount: '100.00', currency: 'USDC' } }));
    const answers = await Promise.all(bodies.map((body) => withdraw(small.apiKey, body)));
    expect(answers.map((answer) => answer.status)).toEqual(bodies.map(() => 202));
    const finals = await Promise.all(bodies.map((body) => finished(small.apiKey, body.idempotencyKey)));
    const sent = finals.filter((body) => body.state === 'SENT');
    const failed = finals.filter((body) => body.state === 'FAILED');
    expect(sent).toHaveLength(2);
    expect(failed).toHaveLength(4);
    for (const body of failed) {
      expect(states(body)).toEqual(['INITIATED', 'PULLING', 'FAILED']);
      expect(body.timeline.at(-1).detail).toMatch(/nothing moved/);
    }
    const balance = await expectLedgerInvariant(small.organizationId);
    expect(balance.available).toBe(50_000_000n);
    expect(balance.held).toBe(0n);
    for (const body of failed) expect(await transfersInBook(small.organizationId, body.withdrawalId)).toBe(0);
  });
});

describe('GET /treasury/withdrawals', () => {
  it('lists newest first, page by page, with cursors that name a row', async () => {
    const lister = await createTestOrganization(service, 'approved', 'Lister Org');
    await unlimited(lister.organizationId);
    await fund(lister.organizationId, 1_000_000_000n);
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const body = withdrawal({ amount: { amount: `${10 + index}`, currency: 'USDC' } });
      expect((await withdraw(lister.apiKey, body)).status).toBe(202);
      ids.push(body.idempotencyKey);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const page = await call(service, 'GET', `/treasury/withdrawals${query}`, { apiKey: lister.apiKey });
      expect(page.status).toBe(200);
      strictly(deepStrict(WithdrawalList), page.body);
      expect(page.body.count).toBe(page.body.withdrawals.length);
      expect(page.body.hasMore).toBe(page.body.nextCursor !== null);
      seen.push(...page.body.withdrawals.map((row: { withdrawalId: string }) => row.withdrawalId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const first = await call(service, 'GET', '/treasury/withdrawals?limit=1', { apiKey: lister.apiKey });
    expect(first.body.withdrawals[0]).toEqual({
      withdrawalId: ids[4], amount: { amount: '14000000', currency: 'USDC', scale: 6 }, network: 'base', toAddress, createdAt: expect.any(String),
    });
    // Another organization's list holds none of them.
    const theirs = await call(service, 'GET', '/treasury/withdrawals?limit=200', { apiKey: other.apiKey });
    expect(theirs.body.withdrawals.map((row: { withdrawalId: string }) => row.withdrawalId)).not.toContain(ids[0]);
    for (const id of ids) await finished(lister.apiKey, id);
    await expectLedgerInvariant(lister.organizationId);
  });

  it("refuses a cursor it did not issue, another organization's cursor, and bad limits", async () => {
    const page = await call(service, 'GET', '/treasury/withdrawals?limit=1', { apiKey: org.apiKey });
    expect(page.body.nextCursor).not.toBeNull();
    const cases: [string, string, string][] = [
      [org.apiKey, 'cursor=not-a-cursor', 'invalid_cursor'],
      [other.apiKey, `cursor=${encodeURIComponent(page.body.nextCursor)}`, 'invalid_cursor'],
      [org.apiKey, 'limit=0', 'validation'],
      [org.apiKey, 'limit=201', 'validation'],
      [org.apiKey, 'limit=abc', 'validation'],
      [org.apiKey, 'cursor=', 'validation'],
    ];
    for (const [apiKey, query, error] of cases) {
      const answer = await call(service, 'GET', `/treasury/withdrawals?${query}`, { apiKey });
      expect(answer.status, query).toBe(400);
      expect(answer.body.error, query).toBe(error);
    }
    expect((await call(service, 'GET', '/treasury/withdrawals?limit=200', { apiKey: org.apiKey })).status).toBe(200);
  });
});

describe('bad input', () => {
  it('answers 4xx, never 500, and stores nothing', async () => {
    const cases: [Record<string, unknown>, number, string][] = [
      [{ amount: undefined }, 400, 'validation'],
      [{ amount: { amount: '1.0000001', currency: 'USDC' } }, 400, 'validation'],
      [{ amount: { amount: '-5', currency: 'USDC' } }, 400, 'validation'],
      [{ amount: { amount: '0', currency: 'USDC' } }, 400, 'validation'],
      [{ amount: { amount: '0.01', currency: 'USDC' } }, 400, 'validation'],
      [{ amount: { amount: 10, currency: 'USDC' } }, 400, 'validation'],
      [{ amount: { amount: '10', currency: 'EURC' } }, 400, 'validation'],
      [{ amount: { amount: '10', currency: 'US' } }, 400, 'validation'],
      [{ chain: '' }, 400, 'validation'],
      [{ chain: 'x'.repeat(41) }, 400, 'validation'],
      [{ chain: undefined }, 400, 'validation'],
      [{ toAddress: '0x1234' }, 400, 'validation'],
      [{ toAddress: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8' }, 400, 'validation'],
      [{ toAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }, 400, 'validation'],
      [{ toAddress: undefined }, 400, 'validation'],
      [{ idempotencyKey: 'short' }, 400, 'validation'],
      [{ idempotencyKey: 'has space in it' }, 400, 'validation'],
      [{ chain: 'solana' }, 422, 'unsupported_network'],
      [{ chain: 'tron' }, 422, 'unsupported_network'],
      [{ chain: 'dogechain' }, 422, 'unsupported_network'],
    ];
    for (const [change, status, error] of cases) {
      const body = withdrawal(change);
      const answer = await withdraw(org.apiKey, body);
      expect(answer.status, JSON.stringify(change)).toBe(status);
      expect(answer.body.error, JSON.stringify(change)).toBe(error);
      if (typeof body.idempotencyKey === 'string' && /^[A-Za-z0-9_.:-]{8,200}$/.test(body.idempotencyKey)) {
        const read = await call(service, 'GET', `/treasury/withdrawals/${body.idempotencyKey}`, { apiKey: org.apiKey });
        expect(read.status, `nothing stored for ${JSON.stringify(change)}`).toBe(404);
      }
    }
    const checksumIssue = await withdraw(org.apiKey, withdrawal({ toAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' }));
    expect(checksumIssue.body.issues[0].path).toEqual(['toAddress']);
    expect(checksumIssue.body.issues[0].message).toMatch(/checksum/);
    for (const raw of ['{', '[]', 'null', '"text"']) {
      const answer = await call(service, 'POST', '/treasury/withdrawals', { apiKey: org.apiKey, rawBody: raw, headers: { 'content-type': 'application/json' } });
      expect(answer.status, raw).toBeGreaterThanOrEqual(400);
      expect(answer.status, raw).toBeLessThan(500);
    }
  });

  it('answers 404 for an id that is not there, and for an id of another organization', async () => {
    const mine = withdrawal({ amount: { amount: '12', currency: 'USDC' } });
    expect((await withdraw(org.apiKey, mine)).status).toBe(202);
    const missing = await call(service, 'GET', '/treasury/withdrawals/wd-never-made-1', { apiKey: org.apiKey });
    expect(missing.status).toBe(404);
    const theirs = await call(service, 'GET', `/treasury/withdrawals/${mine.idempotencyKey}`, { apiKey: other.apiKey });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(missing.body);
    await finished(org.apiKey, mine.idempotencyKey);
  });

  it('needs KYB to withdraw (403 kyb_required), not to quote', async () => {
    const pending = await createTestOrganization(service, 'pending', 'Pending Org');
    const answer = await withdraw(pending.apiKey, withdrawal());
    expect(answer.status).toBe(403);
    expect(answer.body.error).toBe('kyb_required');
    expect((await call(service, 'GET', '/treasury/withdrawals/quote?amount=10&chain=base', { apiKey: pending.apiKey })).status).toBe(200);
  });
});
