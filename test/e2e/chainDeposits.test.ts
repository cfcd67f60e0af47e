import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import type { LocalService } from '../../lib/local/service.ts';
import { simulateChainDeposit } from '../../lib/ops/chainDeposit.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { acceptChainDeposit, ChainDepositRefused } from '#operations/chainDeposit/intake.ts';
import type { ChainDepositRecord } from '#operations/chainDeposit/view.ts';
import { crossingFees } from '#domain/pricing.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { getOperation } from '#store/operations.ts';
import { listJournalEntries } from '#store/ledger.ts';
import { until } from '../support/eventually.ts';

/**
 * USDC arriving on chain, reported as a custody adapter would (the core function it calls), seen
 * by the organization through GET /balance: as is on the home network; on another listed network
 * first in `settling`, then available less the move fee once moved home by its workflow.
 */
let service: LocalService;
let org: TestOrganization;
let externalId: string;

const evmHash = () => `0x${randomBytes(32).toString('hex')}`;

async function balance(apiKey = org.apiKey) {
  const { status, body } = await call(service, 'GET', '/balance', { apiKey });
  expect(status).toBe(200);
  return { available: BigInt(body.available), settling: BigInt(body.settling), total: BigInt(body.total), body };
}

async function credited(organizationId: string, depositId: string, timeoutMs = 20_000): Promise<ChainDepositRecord> {
  return (await until(() => getOperation<ChainDepositRecord>(organizationId, 'chainDeposit', depositId), (record) => !!record && record.status !== 'SETTLING' && record.status !== 'MOVING', {
    what: `deposit ${depositId} credited`, timeoutMs,
  }))!;
}

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service);
  externalId = (await homeWalletOf(org.organizationId)).externalId!;
});

afterEach(() => {
  delete process.env.CHAIN_CROSSING_SECONDS;
});

afterAll(async () => {
  await service?.stop();
});

describe('USDC on the home network', () => {
  it('is credited as is, once per transaction however often it is reported', async () => {
    const before = await balance();
    const txHash = evmHash();
    const first = await acceptChainDeposit({ walletExternalId: externalId, network: 'base', txHash, amount: 25_000_000n });
    expect(first.repeated).toBe(false);
    expect(first.deposit.status).toBe('CREDITED');
    const after = await balance();
    expect(after.available - before.available).toBe(25_000_000n);
    expect(after.settling).toBe(before.settling);
    // The same transaction again, its hash in another case: credited once.
    const again = await acceptChainDeposit({ walletExternalId: externalId, network: 'base', txHash: txHash.toUpperCase().replace('0X', '0x'), amount: 25_000_000n });
    expect(again.repeated).toBe(true);
    expect((await balance()).available).toBe(after.available);
    const entries = (await listJournalEntries(org.organizationId)).filter((entry) => entry.operation.id === `chain:${first.deposit.id}`);
    expect(entries.map((entry) => entry.legs)).toEqual([[{ account: 'external:chain', amount: -25_000_000n }, { account: 'available', amount: 25_000_000n }]]);
    await expectLedgerInvariant(org.organizationId);
  });
});

describe('USDC on another listed network', () => {
  it('shows in settling and the total, then is moved home and credited available less the move fee', async () => {
    process.env.CHAIN_CROSSING_SECONDS = '2';
    const before = await balance();
    const { deposit } = await acceptChainDeposit({ walletExternalId: externalId, network: 'polygon', txHash: evmHash(), amount: 100_000_000n });
    expect(deposit.status).toBe('SETTLING');
    const moving = await balance();
    expect(moving.settling - before.settling).toBe(100_000_000n);
    expect(moving.available).toBe(before.available);
    expect(moving.total).toBe(moving.available + moving.settling);

    const done = await credited(org.organizationId, deposit.id);
    expect(done.status).toBe('CREDITED');
    expect(done.timeline.map((entry) => entry.status)).toEqual(['SETTLING', 'MOVING', 'CREDITED']);
    const fee = crossingFees.base!.polygon!;
    const after = await balance();
    expect(after.settling).toBe(before.settling);
    expect(after.available - before.available).toBe(100_000_000n - fee);
    expect(after.total).toBe(after.available + after.settling);
    await expectLedgerInvariant(org.organizationId);
  });

  it('moves Solana and Tron deposits home too, each less its own crossing fee', async () => {
    for (const [network, txHash] of [['solana', '5'.repeat(88)], ['tron', randomBytes(32).toString('hex')]] as const) {
      const before = await balance();
      const { deposit } = await acceptChainDeposit({ walletExternalId: externalId, network, txHash, amount: 50_000_000n });
      const done = await credited(org.organizationId, deposit.id);
      expect(done.status).toBe('CREDITED');
      expect((await balance()).available - before.available).toBe(50_000_000n - crossingFees.base![network]!);
    }
    await expectLedgerInvariant(org.organizationId);
  });

  it('lets a deposit smaller than the move fee be consumed by it, never below zero', async () => {
    const before = await balance();
    const { deposit } = await acceptChainDeposit({ walletExternalId: externalId, network: 'polygon', txHash: evmHash(), amount: 100_000n });
    const done = await credited(org.organizationId, deposit.id);
    expect(done.fee).toBe('100000');
    const after = await balance();
    expect(after.available).toBe(before.available);
    expect(after.settling).toBe(before.settling);
    await expectLedgerInvariant(org.organizationId);
  });
});

describe('what is not credited', () => {
  it('refuses other assets, unlisted networks, unknown wallets, bad hashes and amounts, and stores nothing', async () => {
    const before = await balance();
    const notices = [
      { walletExternalId: externalId, network: 'base', txHash: evmHash(), amount: 1_000_000n, currency: 'USDT' },
      { walletExternalId: externalId, network: 'arbitrum', txHash: evmHash(), amount: 1_000_000n },
      { walletExternalId: 'sim-wal-nobody', network: 'base', txHash: evmHash(), amount: 1_000_000n },
      { walletExternalId: externalId, network: 'base', txHash: 'not a hash!', amount: 1_000_000n },
      { walletExternalId: externalId, network: 'base', txHash: evmHash(), amount: 0n },
    ];
    for (const notice of notices) {
      await expect(acceptChainDeposit(notice), JSON.stringify(notice, (_, value) => (typeof value === 'bigint' ? String(value) : value))).rejects.toBeInstanceOf(ChainDepositRefused);
    }
    const after = await balance();
    expect([after.available, after.settling, after.total]).toEqual([before.available, before.settling, before.total]);
    await expectLedgerInvariant(org.organizationId);
  });

  it("credits a transaction to one organization only: another organization's wallet cannot claim it", async () => {
    const other = await createTestOrganization(service, 'approved', 'Other Org');
    const otherExternalId = (await homeWalletOf(other.organizationId)).externalId!;
    const txHash = evmHash();
    await acceptChainDeposit({ walletExternalId: externalId, network: 'base', txHash, amount: 3_000_000n });
    await expect(acceptChainDeposit({ walletExternalId: otherExternalId, network: 'base', txHash, amount: 3_000_000n })).rejects.toBeInstanceOf(ChainDepositRefused);
    expect((await balance(other.apiKey)).available).toBe(0n);
    await expectLedgerInvariant(other.organizationId);
  });
});

describe('the ops command simulate-chain-deposit', () => {
  it('reports a deposit to the home wallet as a custodian would, through the same function', async () => {
    const before = await balance();
    const home = await simulateChainDeposit({ organizationId: org.organizationId, network: 'base', amount: 7_000_000n });
    expect(home.deposit.status).toBe('CREDITED');
    expect(home.deposit.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(home.executionName).toBeNull();
    const away = await simulateChainDeposit({ organizationId: org.organizationId, network: 'ethereum', amount: 9_000_000n });
    expect(away.executionName).not.toBeNull();
    await service.runner.waitFor(away.executionName!);
    const after = await balance();
    expect(after.available - before.available).toBe(7_000_000n + 9_000_000n - crossingFees.base!.ethereum!);
    await expectLedgerInvariant(org.organizationId);
  });
});
