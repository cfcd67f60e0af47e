import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { LocalWorkflowRunner } from '../../lib/local/workflowRunner.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { parseDepositResolution, ResolveUsageError, runDepositResolution } from '../../lib/ops/resolveDeposits.ts';
import { outboxItemsOf } from '../support/outbox.ts';
import { useFreshTable } from '../support/table.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { useWorkflowEngine } from '#platform/workflow.ts';
import { workflows } from '#contract/workflows.ts';
import { depositReferenceOf } from '#domain/depositReference.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { priceOffRamp } from '#domain/offRampPricing.ts';
import { depositOffRamp, followOffRampPayout, holdOffRampFunds, parkOffRamp, releaseOffRampHold, type OffRampOutcome } from '#operations/offRamp/progress.ts';
import { resolveOffRamp } from '#operations/offRamp/resolve.ts';
import type { OffRampRecord } from '#operations/offRamp/view.ts';
import { confirmDelivery, convertPayment, deliverUsdc, onRampDepositId, openCollection, parkOnRamp } from '#operations/onRamp/progress.ts';
import { resolveOnRamp } from '#operations/onRamp/resolve.ts';
import { openWireOnRamp, readOnRamp } from '#operations/onRamp/intake.ts';
import { ingestStatementLine, resolveParkedLine } from '#operations/onRamp/wireDeposits.ts';
import { creditDeposit, depositEntryId, listJournalEntries, readBalance } from '#store/ledger.ts';
import { createOperation, getOperation } from '#store/operations.ts';
import { moveStoredOperation } from '#operations/kit/storedOperation.ts';
import { getStatementLine, listParkedStatementLines } from '#store/statementLines.ts';

/**
 * Operator resolution of parked on-ramps, off-ramps and incoming wires (docs/decisions/063)
 * against DynamoDB Local, steps driven by hand: the runner knows only wallet provisioning, so no
 * on-ramp runs behind the test's back. Each is driven to IN_DOUBT by the simulators' bands
 * (cents 94), resolved each way, and resolved again: the second time changes nothing.
 */
let runner: LocalWorkflowRunner;
let organizationId: string;
let unverifiedId: string;
const txHash = () => `0x${randomBytes(32).toString('hex')}`;
const lineId = () => `it-resolve-${ulid()}`;
const lastDetail = (record: { timeline: { detail?: string }[] }) => record.timeline.at(-1)?.detail;

async function onboard(kybStatus: 'approved' | 'pending') {
  const created = await onboardOrganization({ name: `Resolve ${kybStatus}`, kybStatus });
  await runner.waitFor(created.walletExecution);
  return created.organization.id;
}

async function outboxOfType(org: string, type: string, id?: string): Promise<Record<string, unknown>[]> {
  const items = await outboxItemsOf(org, type);
  return id ? items.filter((item) => JSON.stringify(item).includes(id)) : items;
}

/** A wire of band 94 (cents .94): converted, then its delivery is not answered: IN_DOUBT with a net and no txHash. */
async function onRampInDoubt(amount = 123_94n) {
  const line = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount, referenceText: depositReferenceOf(organizationId) });
  expect(line.disposition).toBe('pending');
  const ref = { organizationId, onRampId: line.onRampId! };
  await openCollection(ref);
  expect((await convertPayment(ref)).outcome).toBe('deliver');
  expect(await deliverUsdc(ref)).toEqual({ outcome: 'done' });
  const record = (await readOnRamp(organizationId, ref.onRampId))!;
  expect(record.status).toBe('IN_DOUBT');
  expect(record.failure).toBe('delivery_unanswered');
  return { ref, record };
}

const eurPayee = { id: randomUUID(), ...sampleOffRampBeneficiaries[0]!, createdAt: new Date().toISOString() };

async function newOffRamp(org: string, amount: bigint): Promise<OffRampRecord> {
  const price = priceOffRamp({ pulled: amount, currency: 'EUR' });
  const at = new Date().toISOString();
  const record: OffRampRecord = {
    organizationId: org, kind: 'offramp', id: `ofr-${randomBytes(6).toString('hex')}`, status: 'PULLING', requestHash: 'hash',
    timeline: [{ status: 'PULLING', at }], createdAt: at, updatedAt: at,
    amount: amount.toString(), beneficiaryId: eurPayee.id, beneficiary: eurPayee, currency: 'EUR',
    fee: price.fee.toString(), deliveryFee: price.deliveryFee.toString(), quoteId: null, quotedNet: null, fxBufferBps: null,
    network: 'base', depositAttempts: 0,
  };
  await createOperation(record);
  return record;
}

/** Band 94 of the off-ramp simulator: the deposit is never answered and then unknown: IN_DOUBT with the USDC held. */
async function offRampInDoubt(org: string) {
  const record = await newOffRamp(org, 100_940_000n);
  const ref = { organizationId: org, offRampId: record.id };
  // The workflow's routing (statemachines/offramp.asl.json), without its waits.
  const stepFor: Record<Exclude<OffRampOutcome, 'done'>, typeof holdOffRampFunds> = {
    pull: holdOffRampFunds, held: depositOffRamp, retry: depositOffRamp, paying: followOffRampPayout, waiting: followOffRampPayout, returned: releaseOffRampHold,
  };
  let outcome: OffRampOutcome = 'pull';
  for (let round = 0; round < 10 && outcome !== 'done'; round += 1) outcome = (await stepFor[outcome](ref)).outcome;
  const parked = (await getOperation<OffRampRecord>(org, 'offramp', record.id))!;
  expect(parked.status).toBe('IN_DOUBT');
  expect(parked.closedAs).toBe('deposit_unanswered');
  return { ref, record: parked };
}

const newOrg = () => `org_res_${randomBytes(5).toString('hex')}`;

beforeAll(async () => {
  await useFreshTable('resolve-deposits');
  runner = new LocalWorkflowRunner({ retryIntervalOverrideMs: 0, workflows: { walletProvisioning: workflows.walletProvisioning } });
  useWorkflowEngine(runner);
  organizationId = await onboard('approved');
  unverifiedId = await onboard('pending');
});

afterAll(async () => {
  await expectLedgerInvariant(organizationId);
  await runner?.stop();
  useWorkflowEngine(undefined);
});

describe('resolving an on-ramp parked IN_DOUBT', () => {
  it('delivered: DELIVERED with the normal credit and onramp.delivered, once', async () => {
    const { ref, record } = await onRampInDoubt();
    const before = await readBalance(organizationId);
    const hash = txHash();
    const result = await resolveOnRamp(ref, { as: 'delivered', txHash: hash, note: 'Circle ticket 4411: delivery confirmed' });
    expect(result).toMatchObject({ resolved: true, status: 'DELIVERED' });

    const done = (await readOnRamp(organizationId, ref.onRampId))!;
    expect(done.status).toBe('DELIVERED');
    expect(done.txHash).toBe(hash);
    expect(lastDetail(done)).toBe('resolved by operations: Circle ticket 4411: delivery confirmed');
    const credits = (await listJournalEntries(organizationId)).filter((entry) => entry.entryId === depositEntryId(onRampDepositId(ref.onRampId)));
    expect(credits).toHaveLength(1);
    const after = await expectLedgerInvariant(organizationId);
    expect(after.available - before.available).toBe(BigInt(record.net!));
    expect(await outboxOfType(organizationId, 'onramp.delivered', ref.onRampId)).toHaveLength(1);

    // Again, either way: nothing changes, and it says why.
    for (const again of [
      await resolveOnRamp(ref, { as: 'delivered', txHash: hash, note: 'again' }),
      await resolveOnRamp(ref, { as: 'not-delivered', note: 'again' }),
    ]) {
      expect(again).toMatchObject({ resolved: false, status: 'DELIVERED' });
      expect(again.detail).toMatch(/not parked/);
    }
    expect(await readOnRamp(organizationId, ref.onRampId)).toEqual(done);
    expect((await readBalance(organizationId)).available).toBe(after.available);
    expect(await outboxOfType(organizationId, 'onramp.delivered', ref.onRampId)).toHaveLength(1);
  });

  it('not-delivered: FAILED, nothing credited, no event; resolving twice at once moves it once', async () => {
    const { ref } = await onRampInDoubt(77_94n);
    const before = await readBalance(organizationId);
    const results = await Promise.all([
      resolveOnRamp(ref, { as: 'not-delivered', note: 'issuer: never sent' }),
      resolveOnRamp(ref, { as: 'not-delivered', note: 'issuer: never sent' }),
    ]);
    expect(results.filter((result) => result.resolved)).toHaveLength(1);
    const done = (await readOnRamp(organizationId, ref.onRampId))!;
    expect(done.status).toBe('FAILED');
    expect(done.failure).toBe('not_delivered');
    expect(done.timeline.filter((entry) => entry.status === 'FAILED')).toHaveLength(1);
    expect(lastDetail(done)).toBe('resolved by operations: issuer: never sent');
    expect((await expectLedgerInvariant(organizationId)).available).toBe(before.available);
    expect(await outboxOfType(organizationId, 'onramp.delivered', ref.onRampId)).toHaveLength(0);
  });

  it('refuses delivered for one parked before conversion (no amount), and one not parked; a wrong txHash is refused', async () => {
    const line = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount: 60_00n, referenceText: depositReferenceOf(organizationId) });
    const ref = { organizationId, onRampId: line.onRampId! };
    // Running (PAYMENT_RECEIVED): not parked.
    expect(await resolveOnRamp(ref, { as: 'not-delivered', note: 'too early' })).toMatchObject({ resolved: false, status: 'PAYMENT_RECEIVED' });
    await parkOnRamp({ ...ref, error: 'test' });
    const refused = await resolveOnRamp(ref, { as: 'delivered', txHash: txHash(), note: 'x' });
    expect(refused).toMatchObject({ resolved: false, status: 'IN_DOUBT' });
    expect(refused.detail).toMatch(/before it was converted/);
    await expect(resolveOnRamp(ref, { as: 'not-delivered', note: '   ' })).rejects.toThrow(/note/);
    expect(await resolveOnRamp(ref, { as: 'not-delivered', note: 'nothing converted' })).toMatchObject({ resolved: true, status: 'FAILED' });

    // Parked after the issuer gave a hash: only that hash confirms it.
    const { ref: sent } = await onRampInDoubt(88_94n);
    const known = txHash();
    const record = (await readOnRamp(organizationId, sent.onRampId))!;
    // Moved by hand as if the issuer had answered with a hash, then lost the delivery.
    const delivering = await moveStoredOperation(record, { to: 'DELIVERING', silent: true, set: { txHash: known } });
    await moveStoredOperation(delivering!, { to: 'IN_DOUBT', failure: 'delivery_unknown', detail: 'lost' });
    expect(await resolveOnRamp(sent, { as: 'delivered', txHash: txHash(), note: 'x' })).toMatchObject({ resolved: false, status: 'IN_DOUBT' });
    expect(await resolveOnRamp(sent, { as: 'delivered', txHash: known, note: 'confirmed on chain' })).toMatchObject({ resolved: true, status: 'DELIVERED' });
    await expectLedgerInvariant(organizationId);
  });

  it('a normal delivery is not parked: resolving it changes nothing', async () => {
    const line = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount: 40_00n, referenceText: depositReferenceOf(organizationId) });
    const ref = { organizationId, onRampId: line.onRampId! };
    await openCollection(ref);
    await convertPayment(ref);
    await deliverUsdc(ref);
    await confirmDelivery(ref);
    const done = await readOnRamp(organizationId, ref.onRampId);
    expect(done!.status).toBe('DELIVERED');
    expect(await resolveOnRamp(ref, { as: 'not-delivered', note: 'mistake' })).toMatchObject({ resolved: false, status: 'DELIVERED' });
    expect(await readOnRamp(organizationId, ref.onRampId)).toEqual(done);
  });
});

describe('resolving an off-ramp parked IN_DOUBT', () => {
  it('paid: PAID with the normal capture and offramp.paid, once', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-1', amount: 500_000_000n, rail: 'wire', memo: 'test' });
    const { ref, record } = await offRampInDoubt(org);
    expect((await readBalance(org)).held).toBe(100_940_000n);

    expect(await resolveOffRamp(ref, { as: 'paid', note: 'provider statement 2024-06: paid' })).toMatchObject({ resolved: true, status: 'PAID' });
    const done = (await getOperation<OffRampRecord>(org, 'offramp', record.id))!;
    expect(done.status).toBe('PAID');
    expect(done.closedAs).toBe('paid');
    expect(lastDetail(done)).toBe('resolved by operations: provider statement 2024-06: paid');
    const journal = (await listJournalEntries(org)).map((entry) => entry.entryId).filter((id) => id.startsWith('offramp:')).sort();
    expect(journal).toEqual([`offramp:${record.id}:capture`, `offramp:${record.id}:hold`]);
    const balance = await expectLedgerInvariant(org);
    expect(balance.held).toBe(0n);
    expect(balance.available).toBe(500_000_000n - 100_940_000n);
    expect(await outboxOfType(org, 'offramp.paid')).toHaveLength(1);

    for (const as of ['paid', 'refunded'] as const) {
      expect(await resolveOffRamp(ref, { as, note: 'again' })).toMatchObject({ resolved: false, status: 'PAID' });
    }
    expect(await getOperation(org, 'offramp', record.id)).toEqual(done);
    expect(await outboxOfType(org, 'offramp.paid')).toHaveLength(1);
    expect((await readBalance(org)).available).toBe(balance.available);
  });

  it('refunded: REFUNDED, hold released, no event; twice at once moves it once', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-2', amount: 200_000_000n, rail: 'wire', memo: 'test' });
    const { ref, record } = await offRampInDoubt(org);
    const results = await Promise.all([
      resolveOffRamp(ref, { as: 'refunded', note: 'USDC back in tx 0xabc' }),
      resolveOffRamp(ref, { as: 'refunded', note: 'USDC back in tx 0xabc' }),
    ]);
    expect(results.filter((result) => result.resolved)).toHaveLength(1);
    const done = (await getOperation<OffRampRecord>(org, 'offramp', record.id))!;
    expect(done.status).toBe('REFUNDED');
    expect(done.closedAs).toBe('returned');
    expect(done.timeline.filter((entry) => entry.status === 'REFUNDED')).toHaveLength(1);
    const balance = await expectLedgerInvariant(org);
    expect(balance).toMatchObject({ available: 200_000_000n, held: 0n });
    expect(await outboxOfType(org, 'offramp.paid')).toHaveLength(0);
  });

  it('refuses one parked before its hold (nothing held) and one still running', async () => {
    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-3', amount: 50_000_000n, rail: 'wire', memo: 'test' });
    const early = await newOffRamp(org, 20_000_000n);
    const ref = { organizationId: org, offRampId: early.id };
    expect(await resolveOffRamp(ref, { as: 'refunded', note: 'x' })).toMatchObject({ resolved: false, status: 'PULLING' });
    await parkOffRamp({ ...ref, error: 'test' });
    const refused = await resolveOffRamp(ref, { as: 'refunded', note: 'x' });
    expect(refused).toMatchObject({ resolved: false, status: 'IN_DOUBT' });
    expect(refused.detail).toMatch(/before its USDC was held/);
    expect(await expectLedgerInvariant(org)).toMatchObject({ available: 50_000_000n, held: 0n });
  });
});

describe('resolving a parked incoming wire', () => {
  it('starts a dep- deposit as the reference would have, once; the line leaves the queue', async () => {
    const statementLineId = lineId();
    const parked = await ingestStatementLine({ statementLineId, currency: 'USD', amount: 250_00n, referenceText: 'invoice 42 ACME' });
    expect(parked.disposition).toBe('parked');

    const result = await resolveParkedLine({ statementLineId, organizationId, note: 'payer called: ACME Ltd, our customer' });
    expect(result).toMatchObject({ resolved: true, disposition: 'pending', organizationId });
    expect(result.onRampId).toMatch(/^dep-/);
    expect(result.detail).toBe(`started deposit ${result.onRampId}; resolved by operations: payer called: ACME Ltd, our customer`);
    const line = (await getStatementLine(statementLineId))!;
    expect(line).toMatchObject({ disposition: 'pending', organizationId, onRampId: result.onRampId, referenceText: 'invoice 42 ACME' });
    expect((await listParkedStatementLines(500)).map((row) => row.statementLineId)).not.toContain(statementLineId);

    const deposit = (await readOnRamp(organizationId, result.onRampId!))!;
    expect(deposit).toMatchObject({ status: 'PAYMENT_RECEIVED', origin: 'deposit', rail: 'wire', received: '25000', statementLineId });
    expect(lastDetail(deposit)).toMatch(/resolved by operations: payer called: ACME Ltd, our customer$/);
    expect(await outboxOfType(organizationId, 'onramp.started', result.onRampId!)).toHaveLength(1);

    // Once: again, or at once with another organization, changes nothing.
    const again = await resolveParkedLine({ statementLineId, organizationId: unverifiedId, note: 'again' });
    expect(again).toMatchObject({ resolved: false, disposition: 'pending', onRampId: result.onRampId });
    expect(again.detail).toMatch(/not parked/);
    expect(await getStatementLine(statementLineId)).toEqual(line);
    // Ingested again by the feed: answered as it is now.
    expect(await ingestStatementLine({ statementLineId, currency: 'USD', amount: 250_00n, referenceText: 'invoice 42 ACME' })).toMatchObject({ disposition: 'pending', onRampId: result.onRampId });

    // The deposit runs as any other and credits once.
    const ref = { organizationId, onRampId: result.onRampId! };
    await openCollection(ref);
    await convertPayment(ref);
    await deliverUsdc(ref);
    await confirmDelivery(ref);
    expect((await readOnRamp(organizationId, ref.onRampId))!.status).toBe('DELIVERED');
  });

  it('two resolutions at once: one deposit', async () => {
    const statementLineId = lineId();
    await ingestStatementLine({ statementLineId, currency: 'EUR', amount: 90_00n, referenceText: '' });
    const results = await Promise.all([1, 2, 3].map(() => resolveParkedLine({ statementLineId, organizationId, note: 'identified' })));
    expect(results.filter((result) => result.resolved)).toHaveLength(1);
    expect(new Set(results.map((result) => result.onRampId)).size).toBe(1);
  });

  it('goes to an api on-ramp awaiting payment (attributed), as a wire quoting the reference would', async () => {
    process.env.ONRAMP_WIRE_EXPIRY_SECONDS = '3600';
    try {
      const statementLineId = lineId();
      await ingestStatementLine({ statementLineId, currency: 'EUR', amount: 300_00n, referenceText: 'no ref' });
      const open = await openWireOnRamp(organizationId, { idempotencyKey: `it-res-${ulid()}`, amount: { amount: '300.00', currency: 'EUR' }, targetStablecoin: 'USDC' });
      expect((await openCollection({ organizationId, onRampId: open.onRampId })).outcome).toBe('await');
      const result = await resolveParkedLine({ statementLineId, organizationId, note: 'matched by the treasury desk' });
      expect(result).toMatchObject({ resolved: true, disposition: 'attributed', onRampId: open.onRampId });
      const onRamp = (await readOnRamp(organizationId, open.onRampId))!;
      expect(onRamp).toMatchObject({ status: 'PAYMENT_RECEIVED', received: '30000', statementLineId });
      expect(lastDetail(onRamp)).toMatch(/resolved by operations: matched by the treasury desk$/);
      await parkOnRamp({ organizationId, onRampId: open.onRampId, error: 'test: stop it here' });
    } finally {
      delete process.env.ONRAMP_WIRE_EXPIRY_SECONDS;
    }
  });

  it('refuses what the organization cannot take (not verified, below the minimum, unknown): the line stays parked', async () => {
    const small = lineId();
    await ingestStatementLine({ statementLineId: small, currency: 'USD', amount: 5_00n, referenceText: depositReferenceOf(organizationId) });
    const other = lineId();
    await ingestStatementLine({ statementLineId: other, currency: 'USD', amount: 500_00n, referenceText: '' });
    const cases: [string, string, RegExp][] = [
      [small, organizationId, /below the on-ramp minimum/],
      [other, unverifiedId, /not verified/],
      [other, `org_${ulid()}`, /no organization/],
    ];
    for (const [statementLineId, org, reason] of cases) {
      const stored = await getStatementLine(statementLineId);
      const result = await resolveParkedLine({ statementLineId, organizationId: org, note: 'try' });
      expect(result.resolved).toBe(false);
      expect(result.disposition).toBe('parked');
      expect(result.detail).toMatch(reason);
      expect(await getStatementLine(statementLineId)).toEqual(stored);
    }
    await expect(resolveParkedLine({ statementLineId: 'no-such-line', organizationId, note: 'x' })).rejects.toThrow(/not found/);
  });
});

describe('the CLI glue (admin resolve onramp|offramp|wire-line)', () => {
  it('parses, refuses a missing note or hash, and answers the resolution with the view', async () => {
    expect(() => parseDepositResolution('offramp', ['org', 'ofr-1', '--as', 'paid'])).toThrow(ResolveUsageError);
    expect(() => parseDepositResolution('offramp', ['org', 'ofr-1', '--as', 'sent', '--note', 'x'])).toThrow(/paid or refunded/);
    expect(() => parseDepositResolution('onramp', ['org', 'onr-1', '--as', 'delivered', '--note', 'x'])).toThrow(/--tx-hash/);
    expect(() => parseDepositResolution('onramp', ['org', 'onr-1', '--as', 'delivered', '--tx-hash', '0x12', '--note', 'x'])).toThrow(/--tx-hash/);
    expect(() => parseDepositResolution('wire-line', ['line-1', '--note', 'x'])).toThrow(/--org/);
    expect(() => parseDepositResolution('offramp', ['org', 'ofr-1', '--as', 'paid', '--note', 'two\nlines'])).toThrow(/one line/);
    await expect(runDepositResolution(parseDepositResolution('offramp', [newOrg(), 'ofr-none', '--as', 'paid', '--note', 'x']))).rejects.toThrow(ResolveUsageError);
    const hash = txHash();
    expect(parseDepositResolution('onramp', ['org', 'onr-1', '--as', 'delivered', '--tx-hash', hash, '--note', ' seen '])).toEqual({
      kind: 'onramp', organizationId: 'org', id: 'onr-1', as: 'delivered', txHash: hash, note: 'seen',
    });
    expect(parseDepositResolution('wire-line', ['line-1', '--org', 'org_1', '--note', 'x'])).toEqual({ kind: 'wire-line', statementLineId: 'line-1', organizationId: 'org_1', note: 'x' });

    const org = newOrg();
    await creditDeposit({ organizationId: org, depositId: 'dep-4', amount: 150_000_000n, rail: 'wire', memo: 'test' });
    const { record } = await offRampInDoubt(org);
    const request = parseDepositResolution('offramp', [org, record.id, '--as', 'refunded', '--note', 'returned by the provider']);
    const answer = await runDepositResolution(request);
    expect(answer).toMatchObject({ kind: 'offramp', organizationId: org, id: record.id, resolved: true, status: 'REFUNDED', offRamp: { stage: 'REFUNDED', closedAs: 'returned' } });
    expect(JSON.parse(JSON.stringify(answer))).toMatchObject({ resolved: true });
    expect(await runDepositResolution(request)).toMatchObject({ resolved: false, status: 'REFUNDED' });
    expect(await expectLedgerInvariant(org)).toMatchObject({ available: 150_000_000n, held: 0n });

    const statementLineId = lineId();
    await ingestStatementLine({ statementLineId, currency: 'USD', amount: 75_00n, referenceText: 'unknown payer' });
    const line = await runDepositResolution(parseDepositResolution('wire-line', [statementLineId, '--org', organizationId, '--note', 'identified']));
    expect(line).toMatchObject({ kind: 'wire-line', statementLineId, organizationId, resolved: true, status: 'pending', onRamp: { stage: 'PAYMENT_RECEIVED' } });
  });
});
