import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { findCorridor, sampleBeneficiary, type CorridorDefinition } from '#domain/corridors.ts';
import { parseDecimal } from '#domain/money.ts';
import { reloadConfig } from '#platform/config.ts';
import { PayoutUnanswered, payoutProvider, usePayoutProvider, type PayoutRequest } from '#providers/payout.ts';
import { SimulatedPayouts, outcomeBand } from '#simulators/payout.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { useFreshTable } from '../support/table.ts';

let sequence = 0;

function corridor(to: string, country: string): CorridorDefinition {
  const found = findCorridor('USDC', to, country);
  if (!found) throw new Error(`${to}/${country}`);
  return found;
}

/** A payout request sending `send` USDC (its cents choose the band) on the corridor's first route. */
function request(send: string, overrides: Partial<PayoutRequest> = {}, on = corridor('MXN', 'MX')): PayoutRequest {
  sequence += 1;
  return {
    reference: `org_sim:tx_${process.pid}_${sequence}`,
    provider: on.routes[0]?.provider ?? '',
    corridor: { from: on.from, to: on.to, destinationCountry: on.destinationCountry },
    // What a quote of 100 USDC to MXN pays: whole pesos (1,841.00 MXN), as every receive amount.
    amount: 184_100n,
    currency: on.to,
    sourceAmount: parseDecimal(send, 6),
    beneficiary: sampleBeneficiary(on),
    ...overrides,
  };
}

async function accepted(simulator: SimulatedPayouts, payout: PayoutRequest): Promise<string> {
  const submission = await simulator.submit(payout);
  if (submission.status !== 'accepted') throw new Error(`expected acceptance, got ${JSON.stringify(submission)}`);
  return submission.providerPayoutId;
}

async function bookItems(reference: string) {
  const result = await dynamo().send(
    new QueryCommand({ TableName: tableName(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': keys.simulatedPayout(reference).pk }, ConsistentRead: true }),
  );
  return result.Items ?? [];
}

describe('payout simulator', () => {
  const simulator = new SimulatedPayouts();

  beforeAll(async () => {
    await useFreshTable('payouts');
  });

  afterEach(() => {
    delete process.env.PAYOUT_SETTLE_SECONDS;
  });

  it('reads the band from the cents of the USDC sent', () => {
    expect(outcomeBand(parseDecimal('100.91', 6))).toBe(91);
    expect(outcomeBand(parseDecimal('100.919999', 6))).toBe(91);
    expect(outcomeBand(parseDecimal('7', 6))).toBe(0);
  });

  it('pays any other band exactly, and keeps the payout in its own book', async () => {
    const payout = request('100.00');
    const providerPayoutId = await accepted(simulator, payout);
    expect(providerPayoutId).toMatch(/^sim-po-/);
    expect(await simulator.status(payout.reference)).toEqual({ status: 'paid', paidAmount: 184_100n });
    const stored = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.simulatedPayout(payout.reference), ConsistentRead: true }));
    expect(stored.Item).toMatchObject({ entity: 'simulatedPayout', providerPayoutId, amount: '184100', sourceAmount: '100000000', band: 0 });
  });

  it('91: rejects at submit and creates nothing', async () => {
    const payout = request('100.91');
    expect(await simulator.submit(payout)).toEqual({ status: 'rejected', reason: 'beneficiary account closed' });
    expect(await simulator.status(payout.reference)).toEqual({ status: 'unknown' });
    expect(await bookItems(payout.reference)).toEqual([]);
  });

  it('92: accepts, then the beneficiary bank returns it', async () => {
    const payout = request('250.92');
    await accepted(simulator, payout);
    expect(await simulator.status(payout.reference)).toEqual({ status: 'returned', reason: expect.stringMatching(/returned/) });
  });

  it('93: unavailable on the first two attempts, then accepted and paid exactly', async () => {
    const payout = request('100.93');
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      const error = await simulator.submit(payout).then(() => undefined, (caught: unknown) => caught);
      expect(error).toBeInstanceOf(ProviderUnavailable);
      expect((error as Error).name).toBe('ProviderUnavailable');
      expect(await simulator.status(payout.reference)).toEqual({ status: 'unknown' });
    }
    const providerPayoutId = await accepted(simulator, payout);
    expect(await accepted(simulator, payout)).toBe(providerPayoutId);
    expect(await simulator.status(payout.reference)).toEqual({ status: 'paid', paidAmount: payout.amount });
  });

  it('94: the call goes unanswered, nothing is recorded and the status is unknown', async () => {
    const payout = request('100.94');
    const error = await simulator.submit(payout).then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(PayoutUnanswered);
    expect((error as Error).name).toBe('PayoutUnanswered');
    expect(await simulator.status(payout.reference)).toEqual({ status: 'unknown' });
    expect(await bookItems(payout.reference)).toEqual([]);
  });

  it("95: accepts, then the provider's compliance review holds it", async () => {
    const payout = request('100.95');
    await accepted(simulator, payout);
    expect(await simulator.status(payout.reference)).toEqual({ status: 'review', reason: expect.stringMatching(/compliance review/) });
  });

  it('96: pays one whole destination unit short', async () => {
    const mxn = request('100.96');
    await accepted(simulator, mxn);
    expect(await simulator.status(mxn.reference)).toEqual({ status: 'paid', paidAmount: 184_000n });
    // VND has no decimals: one unit is 1 minor unit.
    const vnd = request('100.96', { amount: 2_500_000n }, corridor('VND', 'VN'));
    await accepted(simulator, vnd);
    expect(await simulator.status(vnd.reference)).toEqual({ status: 'paid', paidAmount: 2_499_999n });
    // Never below zero.
    const tiny = request('100.96', { amount: 40n });
    await accepted(simulator, tiny);
    expect(await simulator.status(tiny.reference)).toEqual({ status: 'paid', paidAmount: 0n });
  });

  it('97: accepts, then the rail rejects it', async () => {
    const payout = request('100.97');
    await accepted(simulator, payout);
    expect(await simulator.status(payout.reference)).toEqual({ status: 'failed', reason: 'rail rejected after acceptance' });
  });

  it('refuses what the rail would: beneficiary problems, unknown corridor or route, wrong currency', async () => {
    const noBank = request('100.00', {}, corridor('INR', 'IN'));
    const { bankCode: _, ...withoutBank } = noBank.beneficiary;
    expect(await simulator.submit({ ...noBank, beneficiary: withoutBank })).toEqual({ status: 'rejected', reason: 'beneficiary incomplete: missing bankCode' });

    const badClabe = request('100.00', { beneficiary: { name: 'Ana', account: '032180000118359718' } });
    const refused = await simulator.submit(badClabe);
    expect(refused).toEqual({ status: 'rejected', reason: 'beneficiary.account must be an 18-digit CLABE with a valid check digit' });
    expect(JSON.stringify(refused)).not.toContain('032180000118359718');

    expect(await simulator.submit(request('100.00', { corridor: { from: 'USDC', to: 'JPY', destinationCountry: 'JP' } }))).toMatchObject({ status: 'rejected' });
    expect(await simulator.submit(request('100.00', { provider: 'owned-br-pix' }))).toMatchObject({ status: 'rejected' });
    expect(await simulator.submit(request('100.00', { currency: 'BRL' }))).toMatchObject({ status: 'rejected' });
    expect(await simulator.submit(request('100.00', { amount: 0n }))).toMatchObject({ status: 'rejected' });
    // Rejections create nothing: the same reference can be submitted again once corrected.
    expect(await accepted(simulator, { ...badClabe, beneficiary: sampleBeneficiary(corridor('MXN', 'MX')) })).toMatch(/^sim-po-/);
  });

  it('pays on an owned route as well', async () => {
    const pix = corridor('BRL', 'BR');
    const payout = request('100.00', { provider: 'owned-br-pix' }, pix);
    await accepted(simulator, payout);
    expect(await simulator.status(payout.reference)).toMatchObject({ status: 'paid' });
  });

  it('answers 50 concurrent submits of one reference with one payout', async () => {
    const payout = request('100.00');
    const answers = await Promise.all(Array.from({ length: 50 }, () => new SimulatedPayouts().submit(payout)));
    const ids = new Set(answers.map((answer) => (answer.status === 'accepted' ? answer.providerPayoutId : answer.status)));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^sim-po-/);
    expect(await bookItems(payout.reference)).toHaveLength(1);
  });

  it('makes one payout of 50 concurrent submits: the conditional Put is the repeat check', async () => {
    // A plain acceptance is booked without reading first; only the losers read the winner's payout.
    const spy = vi.spyOn(dynamo(), 'send');
    try {
      const payout = request('100.00');
      const answers = await Promise.all(Array.from({ length: 50 }, () => new SimulatedPayouts().submit(payout)));
      expect(new Set(answers.map((answer) => (answer.status === 'accepted' ? answer.providerPayoutId : answer.status))).size).toBe(1);
      expect(spy.mock.calls.filter(([command]) => command instanceof GetCommand)).toHaveLength(49);
      expect(await bookItems(payout.reference)).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('answers a repeat with the first submission, whatever the repeat carries', async () => {
    const payout = request('100.00');
    const first = await accepted(simulator, payout);
    expect(await simulator.submit({ ...payout, sourceAmount: parseDecimal('100.91', 6), amount: 1n })).toEqual({ status: 'accepted', providerPayoutId: first, paidAmount: payout.amount });
    expect(await simulator.status(payout.reference)).toEqual({ status: 'paid', paidAmount: payout.amount });
  });

  it('survives a restart: a new simulator reads the same book', async () => {
    const payout = request('100.92');
    const first = await accepted(simulator, payout);
    const restarted = new SimulatedPayouts();
    expect(await restarted.status(payout.reference)).toMatchObject({ status: 'returned' });
    expect(await restarted.submit(payout)).toEqual({ status: 'accepted', providerPayoutId: first });
  });

  it('stays processing until PAYOUT_SETTLE_SECONDS have passed since acceptance', async () => {
    process.env.PAYOUT_SETTLE_SECONDS = '30';
    let now = new Date('2026-11-23T12:00:00.000Z');
    const clocked = new SimulatedPayouts({ now: () => now });
    const payout = request('100.97');
    await accepted(clocked, payout);
    expect(await clocked.status(payout.reference)).toEqual({ status: 'processing' });
    now = new Date('2026-11-23T12:00:29.999Z');
    expect(await clocked.status(payout.reference)).toEqual({ status: 'processing' });
    now = new Date('2026-11-23T12:00:30.000Z');
    expect(await clocked.status(payout.reference)).toMatchObject({ status: 'failed' });
    process.env.PAYOUT_SETTLE_SECONDS = 'soon';
    await expect(clocked.status(payout.reference)).rejects.toThrow(/PAYOUT_SETTLE_SECONDS/);
  });

  it('is the provider in `simulated` only', () => {
    usePayoutProvider(undefined);
    expect(payoutProvider()).toBeInstanceOf(SimulatedPayouts);
    usePayoutProvider(undefined);
    process.env.SERVICE_ENVIRONMENT = 'sandbox';
    reloadConfig();
    try {
      expect(() => payoutProvider()).toThrow(expect.objectContaining({ name: 'ProviderNotConfigured' }));
    } finally {
      delete process.env.SERVICE_ENVIRONMENT;
      reloadConfig();
    }
  });
});
