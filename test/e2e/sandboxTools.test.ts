import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { strictly } from '../support/strictSchema.ts';
import { creditDeposit } from '#store/ledger.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { setRateLimits } from '#store/organizations.ts';
import { corridorCatalogue } from '#domain/corridors.ts';
import { EurcTopUp, SandboxPrefill } from '#schemas/sandbox.ts';
import { until } from '../support/eventually.ts';

/**
 * The sandbox tools the lead built: sandbox-prefill (its payouts are accepted by the very
 * simulators it describes, its bands produce what they say) and topup-eurc (the custodian's
 * faucet, never the ledger); both 501 on production.
 */
describe('on simulated', () => {
  let service: LocalService;
  let org: TestOrganization;

  beforeAll(async () => {
    service = await startTestService();
    org = await createTestOrganization(service, 'approved', 'Sandbox Tools Org');
    await setRateLimits(org.organizationId, { burst: 500, perSecond: 100 });
    await creditDeposit({ organizationId: org.organizationId, depositId: `fund-${randomBytes(4).toString('hex')}`, amount: 5_000_000_000n, rail: 'wire', memo: 'test funding' });
  });

  afterAll(async () => {
    await service?.stop();
  });

  it('sandbox-prefill gives one ready payout per corridor, each accepted as sent', async () => {
    const { status, body } = await call(service, 'GET', '/treasury/sandbox-prefill', { apiKey: org.apiKey });
    expect(status).toBe(200);
    const prefill = strictly(SandboxPrefill, body) as SandboxPrefill;
    expect(prefill.payouts.map((p) => `${p.corridor.to}/${p.corridor.destinationCountry}`).sort()).toEqual(
      corridorCatalogue.map((c) => `${c.to}/${c.destinationCountry}`).sort(),
    );
    expect(prefill.notes.length).toBeGreaterThan(0);
    for (const [index, payout] of prefill.payouts.entries()) {
      const sent = await call(service, 'POST', '/transactions', {
        apiKey: org.apiKey,
        body: { idempotencyKey: `prefill-${index}-${randomBytes(4).toString('hex')}`, ...payout },
      });
      expect(sent.status, `${payout.corridor.to}/${payout.corridor.destinationCountry}: ${JSON.stringify(sent.body)}`).toBe(202);
    }
  });

  it('lists the bands of every simulator, and off-ramp beneficiaries that register and quote as given', async () => {
    const { body } = await call(service, 'GET', '/treasury/sandbox-prefill', { apiKey: org.apiKey });
    const prefill = strictly(SandboxPrefill, body) as SandboxPrefill;
    expect(new Set(prefill.bands.map((band) => band.operation))).toEqual(new Set(['payment', 'onramp', 'withdrawal', 'offramp']));
    for (const band of prefill.bands) expect(band.example.endsWith(`.${band.cents}`)).toBe(true);
    expect(prefill.offrampBeneficiaries.length).toBeGreaterThan(0);
    for (const beneficiary of prefill.offrampBeneficiaries) {
      const registered = await call(service, 'POST', '/treasury/beneficiaries', { apiKey: org.apiKey, body: beneficiary });
      expect(registered.status, JSON.stringify(registered.body)).toBe(201);
      const quote = await call(service, 'GET', `/treasury/offramp/quote?amount=100.00&beneficiaryId=${registered.body.id}`, { apiKey: org.apiKey });
      expect(quote.status, JSON.stringify(quote.body)).toBe(200);
      expect(quote.body.settlementCurrency).toBe(beneficiary.currency);
    }
  });

  it('a withdrawal band does what the prefill says it does', async () => {
    const { body } = await call(service, 'GET', '/treasury/sandbox-prefill', { apiKey: org.apiKey });
    const band = (strictly(SandboxPrefill, body) as SandboxPrefill).bands.find((b) => b.operation === 'withdrawal' && b.outcome === 'RETURNED')!;
    const id = `wd-band-${randomBytes(4).toString('hex')}`;
    const sent = await call(service, 'POST', '/treasury/withdrawals', {
      apiKey: org.apiKey,
      body: { idempotencyKey: id, amount: { amount: band.example, currency: 'USDC' }, chain: 'base', toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const state = await until(async () => (await call(service, 'GET', `/treasury/withdrawals/${id}`, { apiKey: org.apiKey })).body.state as string, (now) => now === band.outcome, {
      what: `the withdrawal at ${band.outcome}`, timeoutMs: 10_000, intervalMs: 100,
    });
    expect(state).toBe(band.outcome);
  });

  it('a payment band does what the prefill says it does', async () => {
    const { body } = await call(service, 'GET', '/treasury/sandbox-prefill', { apiKey: org.apiKey });
    const prefill = strictly(SandboxPrefill, body) as SandboxPrefill;
    const band = prefill.bands.find((b) => b.operation === 'payment' && b.outcome === 'REFUNDED')!;
    expect(band).toBeDefined();
    const payout = prefill.payouts[0]!;
    const id = `band-${randomBytes(4).toString('hex')}`;
    const sent = await call(service, 'POST', '/transactions', {
      apiKey: org.apiKey,
      body: { idempotencyKey: id, ...payout, sendAmount: { amount: band.example, currency: 'USDC' } },
    });
    expect(sent.status).toBe(202);
    const state = await until(async () => (await call(service, 'GET', `/transactions/${id}`, { apiKey: org.apiKey })).body.state as string, (now) => ['REFUNDED', 'FAILED', 'RECONCILED'].includes(now), {
      what: 'the payment ended', timeoutMs: 10_000, intervalMs: 100,
    });
    expect(state).toBe(band.outcome);
  });

  it('topup-eurc credits the custodian book one-for-one, again on each call, and the wallet reports it', async () => {
    const first = await call(service, 'POST', `/wallets/${org.homeWalletId}/topup-eurc`, { apiKey: org.apiKey, body: { amount: '25.50' } });
    expect(first.status).toBe(200);
    expect(strictly(EurcTopUp, first.body)).toEqual({ walletId: org.homeWalletId, balance: { asset: 'EURC', amount: '25500000', scale: 6 } });
    const second = await call(service, 'POST', `/wallets/${org.homeWalletId}/topup-eurc`, { apiKey: org.apiKey, body: { amount: '0.5' } });
    expect(second.body.balance.amount).toBe('26000000');

    const reported = await call(service, 'GET', `/wallets/${org.homeWalletId}/balances`, { apiKey: org.apiKey });
    expect(reported.body.balances).toContainEqual(expect.objectContaining({ asset: 'EURC', amount: '26000000', scale: 6 }));
    // The ledger keeps USDC only: the balance is untouched.
    const balance = await call(service, 'GET', '/balance', { apiKey: org.apiKey });
    expect(balance.body.currency).toBe('USDC');
  });

  it('topup-eurc refuses bad amounts and bodies with 400, unknown and foreign wallets with 404, a wallet that cannot receive with 409', async () => {
    const path = `/wallets/${org.homeWalletId}/topup-eurc`;
    for (const body of [{ amount: '0' }, { amount: '0.00' }, { amount: '1000000.01' }, { amount: '1.234' }, { amount: '-1' }, { amount: 5 }, {}, { amount: '1', extra: true }, { amount: '9'.repeat(400) }]) {
      const answer = await call(service, 'POST', path, { apiKey: org.apiKey, body });
      expect(answer.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(answer.body.error).toBe('validation');
    }
    expect((await call(service, 'POST', '/wallets/wal_nothing_here/topup-eurc', { apiKey: org.apiKey, body: { amount: '1' } })).status).toBe(404);
    const other = await createTestOrganization(service, 'approved', 'Other Org');
    expect((await call(service, 'POST', path, { apiKey: other.apiKey, body: { amount: '1' } })).status).toBe(404);

    await dynamo().send(
      new UpdateCommand({ TableName: tableName(), Key: keys.wallet(other.organizationId, other.homeWalletId), UpdateExpression: 'SET #s = :s', ExpressionAttributeNames: { '#s': 'status' }, ExpressionAttributeValues: { ':s': 'disabled' } }),
    );
    const disabled = await call(service, 'POST', `/wallets/${other.homeWalletId}/topup-eurc`, { apiKey: other.apiKey, body: { amount: '1' } });
    expect(disabled.status).toBe(409);
    expect(disabled.body.error).toBe('conflict');
  });
});

describe('on production', () => {
  let service: LocalService;
  let apiKey: string;
  let walletId: string;

  beforeAll(async () => {
    service = await startTestService('production');
    const onboarded = await onboardOrganization({ name: 'Production Org', kybStatus: 'approved' });
    apiKey = onboarded.apiKey.apiKey;
    walletId = onboarded.organization.homeWalletId;
  });

  afterAll(async () => {
    await service?.stop();
    process.env.SERVICE_ENVIRONMENT = 'simulated';
  });

  it('every sandbox tool answers 501 naming the sandbox feature, and the capabilities say it is not offered', async () => {
    const answers = [
      await call(service, 'GET', '/treasury/sandbox-prefill', { apiKey }),
      await call(service, 'POST', `/wallets/${walletId}/topup-eurc`, { apiKey, body: { amount: '1' } }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(501);
      expect(answer.body).toMatchObject({ error: 'not_implemented', feature: 'sandbox' });
    }
    const { body } = await call(service, 'GET', '/capabilities');
    expect(body.features.find((f: { feature: string }) => f.feature === 'sandbox')).toMatchObject({ status: 'planned' });
  });
});
