import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization, untilSettled } from '../support/service.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
const largestWholeUnits = 1_000_000_000n; const largestAmountAt = (s: number) => largestWholeUnits * 10n ** BigInt(s);
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { creditDeposit, readBalance } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { dynamo, tableName } from '#store/client.ts';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { runAdmin } from '../support/admin.ts';
import { until } from '../support/eventually.ts';

/**
 * The largest amount the service accepts (docs/decisions/072): one billion whole units of the
 * amount's currency, on every endpoint that takes an amount. Above it: 400 `validation` at the
 * edge, nothing stored, nothing parked. At it: the normal path, end to end.
 */
let service: LocalService;
/** 10,000 USDC: cannot cover the largest amount. */
let poor: TestOrganization;
/** Three times the largest amount: covers one of each. */
let rich: TestOrganization;
let seq = 0;

const key = (label: string) => `${label}-${Date.now().toString(36)}-${(seq += 1)}`;
const largest = largestWholeUnits.toString();
const toAddress = '0x52908400098527886e0f7030069857d2e4169ee7';
const corridor = { to: 'MXN', destinationCountry: 'MX' };
const beneficiary = sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!);

/** Every request that carries an amount, valid but for the amount (`amount` for USDC, `fiat` for fiat and BRL). */
function amountRequests(organization: TestOrganization, beneficiaryId: string, usdc: string, fiat: string): [string, string, unknown?][] {
  const q = encodeURIComponent;
  return [
    ['POST', '/quotes', { corridor, sendAmount: { amount: usdc, currency: 'USDC' } }],
    ['POST', '/transactions', { idempotencyKey: key('tx'), corridor, sendAmount: { amount: usdc, currency: 'USDC' }, recipientReference: 'bounds', beneficiary }],
    ['GET', `/treasury/onramp/quote?amount=${q(fiat)}&currency=USD`],
    ['GET', `/treasury/onramp/quote?amount=${q(fiat)}&currency=EUR`],
    ['POST', '/treasury/onramp', { idempotencyKey: key('on'), amount: { amount: fiat, currency: 'USD' } }],
    ['GET', `/treasury/onramp/pix/quote?amount=${q(fiat)}`],
    ['POST', '/treasury/onramp/pix', { idempotencyKey: key('pix'), amount: { amount: fiat } }],
    ['GET', `/treasury/withdrawals/quote?amount=${q(usdc)}&chain=base`],
    ['POST', '/treasury/withdrawals', { idempotencyKey: key('wd'), amount: { amount: usdc, currency: 'USDC' }, chain: 'base', toAddress }],
    ['GET', `/treasury/offramp/quote?amount=${q(usdc)}&beneficiaryId=${beneficiaryId}`],
    ['POST', '/treasury/offramp', { idempotencyKey: key('ofr'), amount: { amount: usdc, currency: 'USDC' }, beneficiaryId }],
    ['POST', '/treasury/onramps/simulate-wire', { amount: { amount: fiat, currency: 'USD' } }],
    ['POST', `/wallets/${organization.homeWalletId}/topup-eurc`, { amount: fiat }],
  ];
}

async function registerBeneficiary(organization: TestOrganization): Promise<string> {
  const registered = await call(service, 'POST', '/treasury/beneficiaries', { apiKey: organization.apiKey, body: sampleOffRampBeneficiaries[0] });
  expect(registered.status).toBe(201);
  return registered.body.id;
}

/** Items of any kind carrying this name (an organization, its wallet, ...). */
async function itemsNamed(name: string) {
  const scanned = await dynamo().send(
    new ScanCommand({ TableName: tableName(), FilterExpression: '#name = :name', ExpressionAttributeNames: { '#name': 'name' }, ExpressionAttributeValues: { ':name': name } }),
  );
  return scanned.Items ?? [];
}

async function lists(organization: TestOrganization) {
  const paths = ['/transactions', '/treasury/onramps', '/treasury/withdrawals', '/treasury/offramps'];
  return Promise.all(paths.map(async (listPath) => (await call(service, 'GET', listPath, { apiKey: organization.apiKey })).body.count));
}

beforeAll(async () => {
  service = await startTestService();
  poor = await createTestOrganization(service, 'approved', 'Poor Bounds Org');
  rich = await createTestOrganization(service, 'approved', 'Rich Bounds Org');
  for (const organization of [poor, rich]) await setRateLimits(organization.organizationId, { burst: 100_000, perSecond: 10_000 });
  await creditDeposit({ organizationId: poor.organizationId, depositId: 'bounds-poor', amount: 10_000_000_000n, rail: 'wire', memo: 'test funding' });
  for (const index of [1, 2, 3]) {
    await creditDeposit({ organizationId: rich.organizationId, depositId: `bounds-rich-${index}`, amount: largestAmountAt(6), rail: 'wire', memo: 'test funding' });
  }
});

afterAll(async () => {
  await service?.stop();
});

describe('the largest amount: one billion whole units of its currency', () => {
  it('above it (one minor unit more, or 1 followed by 32 zeros) every amount is 400 validation naming the field, and nothing is stored', async () => {
    const beneficiaryId = await registerBeneficiary(poor);
    const before = await lists(poor);
    const oversized: [string, string][] = [[`${largest}.000001`, `${largest}.01`], [`1${'0'.repeat(32)}`, `1${'0'.repeat(32)}`], [`${BigInt(largest) + 1n}`, `${BigInt(largest) + 1n}`]];
    for (const [usdc, fiat] of oversized) {
      for (const [method, requestPath, body] of amountRequests(poor, beneficiaryId, usdc, fiat)) {
        const answer = await call(service, method, requestPath, { apiKey: poor.apiKey, body });
        const where = `${method} ${requestPath} ${usdc}`;
        expect(answer.status, where).toBe(400);
        expect(answer.body.error, where).toBe('validation');
        const issue = answer.body.issues.find((candidate: { path: string[] }) => candidate.path.at(-1) === 'amount');
        expect(issue?.message, `${where} ${JSON.stringify(answer.body)}`).toContain(largest);
      }
    }
    expect(await lists(poor)).toEqual(before);
    expect((await expectLedgerInvariant(poor.organizationId)).available).toBe(10_000_000_000n);
  });

  it('at it, a quote prices it and a payment the balance cannot cover is 422 insufficient_funds', async () => {
    const quote = await call(service, 'POST', '/quotes', { apiKey: poor.apiKey, body: { corridor, sendAmount: { amount: largest, currency: 'USDC' } } });
    expect(quote.status).toBe(200);
    expect(quote.body.sendAmount).toEqual({ amount: largestAmountAt(6).toString(), currency: 'USDC', scale: 6 });
    expect(BigInt(quote.body.receiveAmount.amount) > 0n).toBe(true);
    const payment = await call(service, 'POST', '/transactions', {
      apiKey: poor.apiKey,
      body: { idempotencyKey: key('tx'), corridor, sendAmount: { amount: `${largest}.000000`, currency: 'USDC' }, recipientReference: 'largest', beneficiary },
    });
    expect(payment.status).toBe(422);
    expect(payment.body).toMatchObject({ error: 'insufficient_funds', available: { amount: '10000000000', currency: 'USDC' } });
  });

  it('at it, a withdrawal and an off-ramp the balance cannot cover are accepted and end FAILED insufficient_funds, never IN_DOUBT', async () => {
    const beneficiaryId = await registerBeneficiary(poor);
    const withdrawal = { idempotencyKey: key('wd'), amount: { amount: largest, currency: 'USDC' }, chain: 'base', toAddress };
    expect((await call(service, 'POST', '/treasury/withdrawals', { apiKey: poor.apiKey, body: withdrawal })).status).toBe(202);
    const withdrawn = await untilSettled(service, poor.apiKey, `/treasury/withdrawals/${withdrawal.idempotencyKey}`);
    expect(withdrawn.state).toBe('FAILED');

    const offRamp = { idempotencyKey: key('ofr'), amount: { amount: largest, currency: 'USDC' }, beneficiaryId };
    expect((await call(service, 'POST', '/treasury/offramp', { apiKey: poor.apiKey, body: offRamp })).status).toBe(202);
    const paid = await untilSettled(service, poor.apiKey, `/treasury/offramp/${offRamp.idempotencyKey}`, 20_000, (status) => Boolean(status.state));
    expect(paid).toMatchObject({ state: 'FAILED', closedAs: 'insufficient_funds' });
    expect((await expectLedgerInvariant(poor.organizationId)).available).toBe(10_000_000_000n);
  });

  it('at it, a quoted payment, a withdrawal and a quoted off-ramp the balance covers go through to the end', async () => {
    const quote = await call(service, 'POST', '/quotes', { apiKey: rich.apiKey, body: { corridor, sendAmount: { amount: largest, currency: 'USDC' } } });
    expect(quote.status).toBe(200);
    const payment = { idempotencyKey: key('tx'), quoteId: quote.body.quoteId, corridor, sendAmount: { amount: largest, currency: 'USDC' }, recipientReference: 'largest', beneficiary };
    expect((await call(service, 'POST', '/transactions', { apiKey: rich.apiKey, body: payment })).status).toBe(202);

    const withdrawal = { idempotencyKey: key('wd'), amount: { amount: largest, currency: 'USDC' }, chain: 'base', toAddress };
    expect((await call(service, 'POST', '/treasury/withdrawals', { apiKey: rich.apiKey, body: withdrawal })).status).toBe(202);

    const beneficiaryId = await registerBeneficiary(rich);
    const offRampQuote = await call(service, 'GET', `/treasury/offramp/quote?amount=${largest}&beneficiaryId=${beneficiaryId}`, { apiKey: rich.apiKey });
    expect(offRampQuote.status).toBe(200);
    expect(offRampQuote.body.quoteId).toEqual(expect.any(String));
    const offRamp = { idempotencyKey: key('ofr'), amount: { amount: largest, currency: 'USDC' }, beneficiaryId, quoteId: offRampQuote.body.quoteId };
    expect((await call(service, 'POST', '/treasury/offramp', { apiKey: rich.apiKey, body: offRamp })).status).toBe(202);

    const paid = await untilSettled(service, rich.apiKey, `/transactions/${payment.idempotencyKey}`);
    expect(paid.state).toBe('RECONCILED');
    expect(paid.receiveAmount).toEqual(quote.body.receiveAmount);
    expect((await untilSettled(service, rich.apiKey, `/treasury/withdrawals/${withdrawal.idempotencyKey}`)).state).toBe('SENT');
    const offRamped = await untilSettled(service, rich.apiKey, `/treasury/offramp/${offRamp.idempotencyKey}`, 20_000, (status) => Boolean(status.state));
    expect(offRamped.state).toBe('PAID');
    expect(offRamped.net).toEqual(offRampQuote.body.net);
    const balance = await expectLedgerInvariant(rich.organizationId);
    expect(balance.available + balance.held).toBe(0n);
  }, 60_000);

  it('at it, a wire deposit is announced, wired and delivered; PIX refuses it by its own limits', async () => {
    const other = await createTestOrganization(service, 'approved', 'Wire Bounds Org');
    await setRateLimits(other.organizationId, { burst: 100_000, perSecond: 10_000 });
    const fiat = `${largest}.00`;
    const quote = await call(service, 'GET', `/treasury/onramp/quote?amount=${fiat}&currency=USD`, { apiKey: other.apiKey });
    expect(quote.status).toBe(200);
    expect(quote.body.net).toEqual({ amount: '997500000000000', currency: 'USDC', scale: 6 });
    const onRamp = { idempotencyKey: key('on'), amount: { amount: fiat, currency: 'USD' } };
    expect((await call(service, 'POST', '/treasury/onramp', { apiKey: other.apiKey, body: onRamp })).status).toBe(202);
    // Its workflow opens the collection first; a wire that comes before that is a deposit of its own.
    await until(() => call(service, 'GET', `/treasury/onramp/${onRamp.idempotencyKey}`, { apiKey: other.apiKey }), (answer) => answer.body.stage === 'AWAITING_PAYMENT', {
      what: 'the on-ramp awaiting payment', timeoutMs: 20_000, intervalMs: 25,
    });
    const wired = await call(service, 'POST', '/treasury/onramps/simulate-wire', { apiKey: other.apiKey, body: { amount: { amount: fiat, currency: 'USD' } } });
    expect(wired.status).toBe(202);
    expect(wired.body.disposition).toBe('attributed');
    const delivered = await untilSettled(service, other.apiKey, `/treasury/onramp/${onRamp.idempotencyKey}`);
    expect(delivered.state).toBe('DELIVERED');
    expect((await readBalance(other.organizationId)).available).toBe(997_500_000_000_000n);

    expect((await call(service, 'GET', `/treasury/onramp/pix/quote?amount=${fiat}`, { apiKey: other.apiKey })).status).toBe(200);
    const pix = await call(service, 'POST', '/treasury/onramp/pix', { apiKey: other.apiKey, body: { idempotencyKey: key('pix'), amount: { amount: fiat } } });
    expect(pix.status).toBe(400);
    expect(pix.body.issues[0].message).toMatch(/PIX limits/);
  }, 60_000);

  it('the ops CLI refuses an opening deposit above it before creating anything, and credits one at it', async () => {
    const admin = (...args: string[]) => runAdmin(args, { DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });
    const refusedName = key('Oversized Opening');
    const refused = await admin('org', 'create', '--name', refusedName, '--kyb', 'approved', '--deposit', `1${'0'.repeat(32)}`);
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toContain(largest);
    expect(await itemsNamed(refusedName)).toEqual([]);

    const created = await admin('org', 'create', '--name', key('Largest Opening'), '--kyb', 'approved', '--deposit', largest);
    expect(created.status, created.stderr).toBe(0);
    const organizationId = JSON.parse(created.stdout.trim().split('\n').at(-1)!).organizationId as string;
    expect((await readBalance(organizationId)).available).toBe(largestAmountAt(6));
  }, 120_000);
});
