import { randomBytes, randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { priceOffRamp } from '#domain/offRampPricing.ts';
import type { OffRampRecord } from '#operations/offRamp/view.ts';
import type { OffRampDepositRequest } from '#providers/offRamp.ts';
// The steps run here as in the simulated stage: the off-ramp simulator prices through the FX port's simulator.
import { SimulatedOffRamps } from '#simulators/offRamp.ts';
import { creditDeposit, listJournalEntries, readBalance } from '#store/ledger.ts';
import { createOperation, getOperation } from '#store/operations.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { handler as offRampStep } from '../../functions/tasks/offRamp/offRampStep.ts';
import { outboxItemsOf } from '../support/outbox.ts';
import { useFreshTable } from '../support/table.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';

/**
 * The off-ramp workflow's step and the simulator against DynamoDB Local: every step delivered
 * twice (at once, and again after it finished) moves the stage once, moves the money once,
 * writes one offramp.paid and makes one deposit at the provider.
 */
const newOrg = () => `org_ofr_${randomBytes(5).toString('hex')}`;
const eurPayee = { id: randomUUID(), ...sampleOffRampBeneficiaries[0]!, createdAt: new Date().toISOString() };

async function newOffRamp(organizationId: string, amount: bigint, beneficiary = eurPayee): Promise<OffRampRecord> {
  const price = priceOffRamp({ pulled: amount, currency: 'EUR' });
  const at = new Date().toISOString();
  const record: OffRampRecord = {
    organizationId, kind: 'offramp', id: `ofr-${randomBytes(6).toString('hex')}`, status: 'PULLING', requestHash: 'hash',
    timeline: [{ status: 'PULLING', at }], createdAt: at, updatedAt: at,
    amount: amount.toString(), beneficiaryId: beneficiary.id, beneficiary, currency: 'EUR',
    fee: price.fee.toString(), deliveryFee: price.deliveryFee.toString(), quoteId: null, quotedNet: null, fxBufferBps: null,
    network: 'base', depositAttempts: 0,
  };
  await createOperation(record);
  return record;
}

const outboxOfType = (organizationId: string, type: string) => outboxItemsOf(organizationId, type);

beforeAll(async () => {
  await useFreshTable('offramp-progress');
});

/** The workflow's routing (statemachines/offramp.asl.json): which step an outcome leads to. */
const stepAfter: Record<string, string> = { pull: 'hold', held: 'deposit', retry: 'deposit', paying: 'follow', waiting: 'follow', returned: 'release' };

describe('the off-ramp steps, delivered twice', () => {
  it('every step run twice at once and once more after: one hold, one capture, one deposit, one offramp.paid', async () => {
    const organizationId = newOrg();
    await creditDeposit({ organizationId, depositId: 'dep-1', amount: 500_000_000n, rail: 'wire', memo: 'test' });
    const record = await newOffRamp(organizationId, 100_000_000n);
    let ref = { step: 'hold', organizationId, offRampId: record.id };

    for (let round = 0; round < 20; round += 1) {
      const answers = await Promise.all([offRampStep(ref), offRampStep(ref)]);
      if (answers.every((answer) => answer.outcome === 'done')) break;
      expect(answers.map((answer) => answer.outcome)).not.toContain('waiting');
      expect(answers.map((answer) => answer.outcome)).not.toContain('retry');
      ref = { ...ref, step: stepAfter[answers[0]!.outcome]! };
    }
    const done = (await getOperation<OffRampRecord>(organizationId, 'offramp', record.id))!;
    expect(done.status).toBe('PAID');
    expect(done.timeline.map((entry) => entry.status)).toEqual(['PULLING', 'PULLED', 'DEPOSITING', 'CREDITED', 'CONVERTING', 'SETTLING', 'PAYING', 'PAID']);

    // Delivered again once it has ended: nothing moves.
    // (its 10 s wait is capped to 0 in the tests: WAIT_MAX_SECONDS)
    expect(await offRampStep(ref)).toEqual({ outcome: 'done', waitSeconds: 0 });
    const journal = (await listJournalEntries(organizationId)).map((entry) => entry.entryId).sort();
    expect(journal.filter((id) => id.startsWith('offramp:'))).toEqual([`offramp:${record.id}:capture`, `offramp:${record.id}:hold`]);
    expect(await outboxOfType(organizationId, 'offramp.paid')).toHaveLength(1);
    const balance = await expectLedgerInvariant(organizationId);
    expect(balance.available).toBe(400_000_000n);
    expect(balance.held).toBe(0n);
  });

  it('a payee listed since the off-ramp was accepted: FAILED compliance_hold before the hold, nothing moved, the record masked', async () => {
    const organizationId = newOrg();
    await creditDeposit({ organizationId, depositId: 'dep-held', amount: 500_000_000n, rail: 'wire', memo: 'test' });
    // Accepted while the list did not name it: the record as the intake wrote it then.
    const record = await newOffRamp(organizationId, 100_000_000n, { ...eurPayee, id: randomUUID(), name: 'Bl\u043eck\u0435d P\u0435rson GmbH' });
    const ref = { step: 'hold', organizationId, offRampId: record.id };
    await Promise.all([offRampStep(ref), offRampStep(ref)]);
    expect(await offRampStep(ref)).toMatchObject({ outcome: 'done' });
    const done = (await getOperation<OffRampRecord>(organizationId, 'offramp', record.id))!;
    expect(done.status).toBe('FAILED');
    expect(done.closedAs).toBe('compliance_hold');
    expect(done.timeline.map((entry) => entry.status)).toEqual(['PULLING', 'FAILED']);
    expect((await listJournalEntries(organizationId)).filter((entry) => entry.entryId.startsWith('offramp:'))).toEqual([]);
    expect((await readBalance(organizationId)).available).toBe(500_000_000n);
    await expectLedgerInvariant(organizationId);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.complianceRecord(organizationId, record.id, 'offramp'), ConsistentRead: true }));
    expect(Item).toMatchObject({ decision: 'held', operation: 'offramp', beneficiaryId: record.beneficiaryId, beneficiaryAccount: expect.stringMatching(/^\*+3000$/) });
    expect(JSON.stringify(Item)).not.toContain(eurPayee.accountId);
  });

  it('a hold that does not fit fails the off-ramp with nothing moved, however often the step runs', async () => {
    const organizationId = newOrg();
    await creditDeposit({ organizationId, depositId: 'dep-2', amount: 10_000_000n, rail: 'wire', memo: 'test' });
    const record = await newOffRamp(organizationId, 20_000_000n);
    const ref = { step: 'hold', organizationId, offRampId: record.id };
    await Promise.all([offRampStep(ref), offRampStep(ref), offRampStep(ref)]);
    const done = (await getOperation<OffRampRecord>(organizationId, 'offramp', record.id))!;
    expect(done.status).toBe('FAILED');
    expect(done.closedAs).toBe('insufficient_funds');
    expect(done.timeline.map((entry) => entry.status)).toEqual(['PULLING', 'FAILED']);
    expect((await readBalance(organizationId)).available).toBe(10_000_000n);
    await expectLedgerInvariant(organizationId);
  });

  it('park stops a running off-ramp IN_DOUBT with its money where it was, and leaves an ended one alone', async () => {
    const organizationId = newOrg();
    await creditDeposit({ organizationId, depositId: 'dep-3', amount: 50_000_000n, rail: 'wire', memo: 'test' });
    const record = await newOffRamp(organizationId, 20_000_000n);
    await offRampStep({ step: 'hold', organizationId, offRampId: record.id });
    expect(await offRampStep({ step: 'park', organizationId, offRampId: record.id, error: { Error: 'Boom' } })).toMatchObject({ outcome: 'done' });
    const parked = (await getOperation<OffRampRecord>(organizationId, 'offramp', record.id))!;
    expect(parked.status).toBe('IN_DOUBT');
    expect(parked.closedAs).toBe('internal_error');
    expect((await readBalance(organizationId)).held).toBe(20_000_000n);
    await offRampStep({ step: 'park', organizationId, offRampId: record.id });
    expect((await getOperation<OffRampRecord>(organizationId, 'offramp', record.id))!.timeline).toHaveLength(parked.timeline.length);
    await expectLedgerInvariant(organizationId);
  });
});

describe('the off-ramp simulator', () => {
  const request = (overrides: Partial<OffRampDepositRequest> = {}): OffRampDepositRequest => ({
    reference: `org:${randomBytes(6).toString('hex')}`,
    amount: 99_500_000n,
    sourceAmount: 100_000_000n,
    deliveryFee: 500_000n,
    network: 'base',
    beneficiary: sampleOffRampBeneficiaries[0]!,
    ...overrides,
  });

  it('one reference makes one deposit, also from a new instance (a restart) and from racing calls', async () => {
    const first = request({ payout: 9_000n });
    const answers = await Promise.all([new SimulatedOffRamps().deposit(first), new SimulatedOffRamps().deposit(first)]);
    expect(answers[0]).toEqual(answers[1]);
    const again = await new SimulatedOffRamps().deposit({ ...first, amount: 1n });
    expect(again).toEqual(answers[0]);
    expect(await new SimulatedOffRamps().progress(first.reference)).toMatchObject({ status: 'paid', paid: 9_000n, slippage: 0n });
  });

  it('refuses what a bank rail refuses: a bad IBAN for SEPA, a malformed BIC, an unserved currency', async () => {
    const payee = sampleOffRampBeneficiaries[0]!;
    const simulator = new SimulatedOffRamps();
    expect(await simulator.deposit(request({ beneficiary: { ...payee, accountId: 'DE89370400440532013001' } }))).toMatchObject({ status: 'refused' });
    expect(await simulator.deposit(request({ beneficiary: { ...payee, bic: '12345678' } }))).toMatchObject({ status: 'refused' });
    expect(await simulator.deposit(request({ beneficiary: { ...payee, currency: 'JPY' } }))).toMatchObject({ status: 'refused' });
  });

  it('band 94 is never answered and then unknown; band 93 is unavailable twice, then taken', async () => {
    const simulator = new SimulatedOffRamps();
    const unanswered = request({ sourceAmount: 100_940_000n });
    await expect(simulator.deposit(unanswered)).rejects.toMatchObject({ name: 'OffRampDepositUnanswered' });
    expect(await simulator.progress(unanswered.reference)).toEqual({ status: 'unknown' });
    const flaky = request({ sourceAmount: 100_930_000n });
    await expect(simulator.deposit(flaky)).rejects.toMatchObject({ name: 'ProviderUnavailable' });
    await expect(simulator.deposit(flaky)).rejects.toMatchObject({ name: 'ProviderUnavailable' });
    expect(await simulator.deposit(flaky)).toMatchObject({ status: 'credited' });
  });
});
