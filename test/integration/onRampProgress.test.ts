import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ulid } from 'ulid';
import { LocalWorkflowRunner } from '../../lib/local/workflowRunner.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { useFreshTable } from '../support/table.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { useWorkflowEngine } from '#platform/workflow.ts';
import { workflows } from '#contract/workflows.ts';
import { depositReferenceOf, referenceAlphabet } from '#domain/depositReference.ts';
import { awaitPayment, confirmDelivery, convertPayment, deliverUsdc, openCollection, onRampDepositId, parkOnRamp } from '#operations/onRamp/progress.ts';
import { listOnRampPage, openWireOnRamp, readOnRamp } from '#operations/onRamp/intake.ts';
import { ingestStatementLine, referenceIn } from '#operations/onRamp/wireDeposits.ts';
import { depositEntryId, listJournalEntries, readBalance } from '#store/ledger.ts';
import { listParkedStatementLines } from '#store/statementLines.ts';

/**
 * The on-ramp against DynamoDB Local, steps driven by hand: the runner here knows only wallet
 * provisioning, so nothing runs an on-ramp behind the test's back (its start is refused and
 * logged, as a dead workflow engine would be). What the workflow may do, delivering a step twice
 * or at once, is done here on purpose.
 */
let runner: LocalWorkflowRunner;
let organizationId: string;
let unverifiedId: string;
let seq = 0;
const lineId = () => `it-line-${ulid()}-${(seq += 1)}`;

async function onboard(kybStatus: 'approved' | 'pending') {
  const created = await onboardOrganization({ name: `On-ramp ${kybStatus}`, kybStatus });
  await runner.waitFor(created.walletExecution);
  return created.organization.id;
}

async function driveToDelivering(onRampId: string) {
  const ref = { organizationId, onRampId };
  expect((await openCollection(ref)).outcome).toBe('convert');
  // Fiat not at par passes FORWARDING first: one more convert step.
  let next = (await convertPayment(ref)).outcome;
  if (next === 'convert') next = (await convertPayment(ref)).outcome;
  expect(next).toBe('deliver');
  expect((await deliverUsdc(ref)).outcome).toBe('confirm');
  expect((await readOnRamp(organizationId, onRampId))!.status).toBe('DELIVERING');
  return ref;
}

beforeAll(async () => {
  await useFreshTable('onramp');
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

describe('a step delivered twice', () => {
  it('credits once: confirmations delivered at once and again later write one journal entry', async () => {
    const before = await readBalance(organizationId);
    const line = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount: 123_45n, referenceText: depositReferenceOf(organizationId) });
    expect(line.disposition).toBe('pending');
    const ref = await driveToDelivering(line.onRampId!);

    const outcomes = await Promise.all([confirmDelivery(ref), confirmDelivery(ref), confirmDelivery(ref)]);
    expect(outcomes.map((outcome) => outcome.outcome)).toEqual(['done', 'done', 'done']);
    expect(await confirmDelivery(ref)).toEqual({ outcome: 'done' });

    const record = (await readOnRamp(organizationId, ref.onRampId))!;
    expect(record.status).toBe('DELIVERED');
    expect(record.timeline.filter((entry) => entry.status === 'DELIVERED')).toHaveLength(1);
    const credits = (await listJournalEntries(organizationId)).filter((entry) => entry.entryId === depositEntryId(onRampDepositId(ref.onRampId)));
    expect(credits).toHaveLength(1);
    const after = await expectLedgerInvariant(organizationId);
    expect(after.available - before.available).toBe(BigInt(record.net!));
    expect(BigInt(record.gross!)).toBe(123_450_000n);
  });

  it('changes nothing when any step runs again on a finished deposit', async () => {
    const line = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount: 50_00n, referenceText: depositReferenceOf(organizationId) });
    const ref = await driveToDelivering(line.onRampId!);
    await confirmDelivery(ref);
    const finished = await readOnRamp(organizationId, ref.onRampId);
    const balance = await readBalance(organizationId);
    for (const step of [openCollection, awaitPayment, convertPayment, deliverUsdc, confirmDelivery, parkOnRamp]) {
      expect(await step(ref)).toEqual({ outcome: 'done' });
    }
    expect(await readOnRamp(organizationId, ref.onRampId)).toEqual(finished);
    expect((await readBalance(organizationId)).available).toBe(balance.available);
  });

  it('delivers once when the delivery step runs twice at once: one txHash', async () => {
    const line = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount: 70_00n, referenceText: depositReferenceOf(organizationId) });
    const ref = { organizationId, onRampId: line.onRampId! };
    await openCollection(ref);
    await convertPayment(ref);
    const [first, second] = await Promise.all([deliverUsdc(ref), deliverUsdc(ref)]);
    expect([first.outcome, second.outcome]).toEqual(['confirm', 'confirm']);
    const record = (await readOnRamp(organizationId, ref.onRampId))!;
    expect(record.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(record.timeline.filter((entry) => entry.status === 'DELIVERING')).toHaveLength(1);
    await confirmDelivery(ref);
  });
});

describe('ingesting statement lines', () => {
  function mangled(reference: string): string {
    const at = 10;
    const swapped = referenceAlphabet[(referenceAlphabet.indexOf(reference[at]!) + 1) % referenceAlphabet.length]!;
    return `${reference.slice(0, at)}${swapped}${reference.slice(at + 1)}`;
  }

  /** Two neighbours swapped: the commonest typing error, caught by the check character. */
  function transposed(reference: string): string {
    const at = [...reference].findIndex((character, index) => index >= 3 && reference[index + 1] !== undefined && reference[index + 1] !== character);
    return `${reference.slice(0, at)}${reference[at + 1]}${reference[at]}${reference.slice(at + 2)}`;
  }

  it('parks a missing, mangled or unknown reference, an unverified organization and a currency with no account: nothing starts, nothing is credited', async () => {
    const balance = await readBalance(organizationId);
    const { rows: before } = await listOnRampPage(organizationId, { limit: 500 });
    const reference = depositReferenceOf(organizationId);
    const cases: [string, string, RegExp][] = [
      ['USD', 'invoice 42', /no valid deposit reference/],
      ['USD', '', /no valid deposit reference/],
      ['USD', mangled(reference), /no valid deposit reference/],
      ['USD', transposed(reference), /no valid deposit reference/],
      ['USD', depositReferenceOf(`org_${ulid()}`), /names no organization/],
      ['USD', depositReferenceOf(unverifiedId), /not verified/],
      ['GBP', reference, /no house account takes GBP/],
      ['USD', `${reference} ${depositReferenceOf(unverifiedId)}`, /no valid deposit reference/],
    ];
    const ids: string[] = [];
    for (const [currency, referenceText, detail] of cases) {
      const statementLineId = lineId();
      ids.push(statementLineId);
      const answer = await ingestStatementLine({ statementLineId, currency, amount: 500_00n, referenceText });
      expect(answer.disposition, referenceText).toBe('parked');
      expect(answer.onRampId).toBeNull();
      expect(answer.detail, referenceText).toMatch(detail);
    }
    const parked = (await listParkedStatementLines(500)).map((line) => line.statementLineId);
    expect(parked).toEqual(expect.arrayContaining(ids));
    expect((await readBalance(organizationId)).available).toBe(balance.available);
    expect((await listOnRampPage(organizationId, { limit: 500 })).rows).toEqual(before);
  });

  it('is idempotent on the statement line: the same line, in sequence or at once, starts one deposit', async () => {
    const statementLineId = lineId();
    const line = { statementLineId, currency: 'USD', amount: 42_00n, referenceText: depositReferenceOf(organizationId) };
    const answers = await Promise.all([ingestStatementLine(line), ingestStatementLine(line), ingestStatementLine(line)]);
    expect(new Set(answers.map((answer) => answer.onRampId)).size).toBe(1);
    expect(await ingestStatementLine({ ...line, amount: 99_00n })).toEqual(answers[0]);
    const { rows } = await listOnRampPage(organizationId, { limit: 500, origin: 'deposit' });
    expect(rows.filter((row) => row.onRampId === answers[0]!.onRampId)).toHaveLength(1);
    const ref = await driveToDelivering(answers[0]!.onRampId!);
    await confirmDelivery(ref);
  });

  it('finds the reference among the words a bank adds, in any case and with separators', () => {
    const reference = depositReferenceOf(organizationId);
    expect(referenceIn(`/RFB/ payment ${reference.toLowerCase()} inv 42`)?.organizationId).toBe(organizationId);
    expect(referenceIn(`${reference.slice(0, 10)}-${reference.slice(10)}`)?.organizationId).toBe(organizationId);
    expect(referenceIn('REF')).toBeUndefined();
  });

  it('attributes a wire to the oldest api on-ramp of its currency awaiting payment', async () => {
    process.env.ONRAMP_WIRE_EXPIRY_SECONDS = '3600';
    try {
      const older = await openWireOnRamp(organizationId, { idempotencyKey: `it-older-${ulid()}`, amount: { amount: '200.00', currency: 'USD' }, targetStablecoin: 'USDC' });
      const newer = await openWireOnRamp(organizationId, { idempotencyKey: `it-newer-${ulid()}`, amount: { amount: '200.00', currency: 'USD' }, targetStablecoin: 'USDC' });
      const euro = await openWireOnRamp(organizationId, { idempotencyKey: `it-euro-${ulid()}`, amount: { amount: '200.00', currency: 'EUR' }, targetStablecoin: 'USDC' });
      for (const { onRampId } of [older, newer, euro]) expect((await openCollection({ organizationId, onRampId })).outcome).toBe('await');

      const first = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount: 200_00n, referenceText: depositReferenceOf(organizationId) });
      expect(first).toMatchObject({ disposition: 'attributed', onRampId: older.onRampId });
      const second = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount: 201_00n, referenceText: depositReferenceOf(organizationId) });
      expect(second).toMatchObject({ disposition: 'attributed', onRampId: newer.onRampId });
      // A different amount is still this on-ramp's wire: the reference decides, and what arrived is what converts.
      expect((await readOnRamp(organizationId, newer.onRampId))!.received).toBe('20100');
      const third = await ingestStatementLine({ statementLineId: lineId(), currency: 'USD', amount: 200_00n, referenceText: depositReferenceOf(organizationId) });
      expect(third.disposition).toBe('pending');

      for (const onRampId of [older.onRampId, newer.onRampId, third.onRampId!]) {
        await driveToDelivering(onRampId).then((ref) => confirmDelivery(ref));
      }
      // The EUR one is still open; the wire window closes it.
      expect((await readOnRamp(organizationId, euro.onRampId))!.status).toBe('AWAITING_PAYMENT');
      await parkOnRamp({ organizationId, onRampId: euro.onRampId, error: 'test' });
      expect((await readOnRamp(organizationId, euro.onRampId))!.status).toBe('IN_DOUBT');
      const late = await ingestStatementLine({ statementLineId: lineId(), currency: 'EUR', amount: 200_00n, referenceText: depositReferenceOf(organizationId) });
      expect(late.disposition).toBe('pending');
      await driveToDelivering(late.onRampId!).then((ref) => confirmDelivery(ref));
    } finally {
      delete process.env.ONRAMP_WIRE_EXPIRY_SECONDS;
    }
  });
});
