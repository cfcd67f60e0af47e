import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { paymentProgress, pollPayout, submitPayout, type PaymentRef } from '#operations/payment/progress.ts';
import { resolvePayment } from '#operations/payment/resolve.ts';
import { OperationNotFound } from '#operations/kit/errors.ts';
import { pollWithdrawal, pullFunds, sendWithdrawal, type WithdrawalRef } from '#operations/withdrawal/progress.ts';
import { resolveWithdrawal } from '#operations/withdrawal/resolve.ts';
import type { WithdrawalRecord } from '#operations/withdrawal/view.ts';
import { useChainSender } from '#providers/chain.ts';
import { usePayoutProvider } from '#providers/payout.ts';
import { SimulatedChain } from '#simulators/chain.ts';
import { SimulatedPayouts } from '#simulators/payout.ts';
import { applyMovement, creditDeposit, listJournalEntries } from '#store/ledger.ts';
import { createOperation, getOperation } from '#store/operations.ts';
import { createTransactionItems, getTransaction, type TransactionRecord } from '#store/transactions.ts';
import { resolveFromCli } from '../../lib/ops/resolvePayments.ts';
import { ResolveUsageError } from '../../lib/ops/resolveDeposits.ts';
import { expectLedgerInvariant } from '../support/ledgerInvariant.ts';
import { outboxItemsOf } from '../support/outbox.ts';
import { useFreshTable } from '../support/table.ts';

/**
 * Operations resolving parked payments and withdrawals (docs/decisions/063) against DynamoDB
 * Local: each is driven to IN_DOUBT or NEEDS_ATTENTION by the simulators' outcome bands (cents
 * 94 and 95), resolved each way, and resolved again (or resolved when not parked) to show that
 * nothing changes the second time: status, timeline, ledger and outbox stay as they were.
 */
const funded = 1_000_000_000n;
const fee = 1_000_000n;
const note = 'provider statement 2026-11-23 line 14';
const hash = `0x${'ab'.repeat(32)}`;
let sequence = 0;

async function newOrganization(prefix: string): Promise<string> {
  sequence += 1;
  const organizationId = `org_${prefix}_${process.pid}_${sequence}`;
  await creditDeposit({ organizationId, depositId: `dep-${sequence}`, amount: funded, rail: 'wire', memo: 'test' });
  return organizationId;
}

/** A FUNDED payment with its hold, as POST /transactions writes it; `send`'s cents choose the simulator's band. */
async function newPayment(send: bigint): Promise<PaymentRef> {
  const organizationId = await newOrganization('rsp');
  const transactionId = `tx-resolve-${sequence}`;
  const corridor = findCorridor('USDC', 'MXN', 'MX')!;
  const at = new Date().toISOString();
  const tx: TransactionRecord = {
    organizationId, transactionId, state: 'FUNDED', requestHash: 'h',
    corridor: { from: corridor.from, to: corridor.to, destinationCountry: corridor.destinationCountry },
    send: send.toString(), fee: fee.toString(), networkFee: null, fundingNetwork: 'base', rate: { numerator: '18', denominator: '1' },
    margin: null, receive: '1800000', provider: corridor.routes[0]!.provider, routeKind: corridor.routes[0]!.kind,
    quoteId: null, recipientReference: 'INV-1', beneficiary: sampleBeneficiary(corridor), originator: null, payoutMode: 'regular',
    timeline: [{ state: 'FUNDED', at }], submitAttempts: 0, createdAt: at, updatedAt: at,
  };
  await applyMovement(
    {
      organizationId, entryId: `payment:${transactionId}:hold`, operation: { kind: 'payment', id: transactionId },
      legs: [{ account: 'available', amount: -send }, { account: 'held', amount: send }], memo: 'hold',
    },
    createTransactionItems(tx) as never,
  );
  return { organizationId, transactionId };
}

/** Band 94: the submit goes unanswered → IN_DOUBT. Band 95: the provider's review → NEEDS_ATTENTION. Else RECONCILED. */
async function parkedPayment(band: 94 | 95 | 0): Promise<PaymentRef> {
  const ref = await newPayment(100_000_000n + BigInt(band) * 10_000n);
  await submitPayout(ref);
  await pollPayout(ref);
  if (band === 0) {
    const { reconcilePayment } = await import('#operations/payment/progress.ts');
    await reconcilePayment(ref);
  }
  return ref;
}

async function newWithdrawal(amount: bigint, status: 'INITIATED' | 'NEEDS_ATTENTION' = 'INITIATED'): Promise<WithdrawalRef> {
  const organizationId = await newOrganization('rsw');
  const id = `wd-resolve-${sequence}`;
  const at = new Date().toISOString();
  const record: WithdrawalRecord = {
    organizationId, kind: 'withdrawal', id, status, requestHash: 'h',
    timeline: status === 'INITIATED' ? [{ status, at }] : [{ status: 'INITIATED', at }, { status, at, detail: 'stopped before the hold' }],
    createdAt: at, updatedAt: at,
    amount: amount.toString(), network: 'base', homeNetwork: 'base', toAddress: '0x52908400098527886e0f7030069857d2e4169ee7',
    crossingFee: '0', gasFee: '15000', fee: '15000', net: (amount - 15_000n).toString(), sendAttempts: 0, transferId: null, txHash: null,
  };
  await createOperation(record);
  return { organizationId, withdrawalId: id };
}

/** Band 94: the send goes unanswered → IN_DOUBT. Band 95: the custodian's review → NEEDS_ATTENTION. Else SENT. */
async function parkedWithdrawal(band: 94 | 95 | 0): Promise<WithdrawalRef> {
  const ref = await newWithdrawal(50_000_000n + BigInt(band) * 10_000n);
  await pullFunds(ref);
  await sendWithdrawal(ref);
  await pollWithdrawal(ref);
  return ref;
}

const payment = async (ref: PaymentRef) => (await getTransaction(ref.organizationId, ref.transactionId))!;
const withdrawal = async (ref: WithdrawalRef) => (await getOperation<WithdrawalRecord>(ref.organizationId, 'withdrawal', ref.withdrawalId))!;

async function outboxTypes(organizationId: string): Promise<string[]> {
  return (await outboxItemsOf(organizationId)).map((item) => String(item.event.type)).sort();
}

/** Everything a resolution could touch, to compare before and after one that must change nothing. */
async function snapshot(organizationId: string, read: () => Promise<unknown>) {
  return { record: await read(), journal: (await listJournalEntries(organizationId)).map((entry) => entry.entryId).sort(), outbox: await outboxTypes(organizationId) };
}

beforeAll(async () => {
  await useFreshTable('resolve');
});

afterEach(() => {
  usePayoutProvider(undefined);
  useChainSender(undefined);
});

describe('resolving a parked payment', () => {
  const install = () => usePayoutProvider(new SimulatedPayouts());

  it('IN_DOUBT as paid: PAID_OUT then RECONCILED, the hold captured and the fee realized, once', async () => {
    install();
    const ref = await parkedPayment(94);
    expect((await payment(ref)).state).toBe('IN_DOUBT');
    const send = 100_940_000n;

    const result = await resolvePayment({ ...ref, as: 'paid', note });
    expect(result).toMatchObject({ resolved: true, status: 'RECONCILED' });
    const tx = await payment(ref);
    expect(tx.state).toBe('RECONCILED');
    expect(tx.timeline.map((entry) => entry.state)).toEqual(['FUNDED', 'ROUTING', 'IN_DOUBT', 'PAID_OUT', 'RECONCILED']);
    expect(tx.timeline.at(-2)!.detail).toBe(`resolved by operations: ${note}`);
    const balance = await expectLedgerInvariant(ref.organizationId);
    expect(balance.available).toBe(funded - send);
    expect(balance.held).toBe(0n);
    const capture = (await listJournalEntries(ref.organizationId)).find((entry) => entry.entryId === `payment:${ref.transactionId}:capture`)!;
    expect(capture.legs).toContainEqual({ account: 'revenue:fees', amount: fee });
    expect(capture.legs).toContainEqual({ account: `payout:${tx.provider}`, amount: send - fee });
    const types = await outboxTypes(ref.organizationId);
    expect(types.filter((type) => type === 'transaction.paid_out')).toHaveLength(1);
    expect(types.filter((type) => type === 'transaction.reconciled')).toHaveLength(1);

    const before = await snapshot(ref.organizationId, () => payment(ref));
    for (const as of ['paid', 'not-paid'] as const) {
      const again = await resolvePayment({ ...ref, as, note: 'again' });
      expect(again).toEqual({ resolved: false, status: 'RECONCILED', detail: expect.stringMatching(/not IN_DOUBT or NEEDS_ATTENTION: nothing changed/) });
    }
    expect(await snapshot(ref.organizationId, () => payment(ref))).toEqual(before);
  });

  it('NEEDS_ATTENTION as not-paid: REFUNDED, the hold released, no fee, transaction.refunded once', async () => {
    install();
    const ref = await parkedPayment(95);
    expect((await payment(ref)).state).toBe('NEEDS_ATTENTION');

    const result = await resolvePayment({ ...ref, as: 'not-paid', note: `  ${note} ` });
    expect(result).toMatchObject({ resolved: true, status: 'REFUNDED' });
    const tx = await payment(ref);
    expect(tx.timeline.map((entry) => entry.state)).toEqual(['FUNDED', 'ROUTING', 'SETTLING', 'NEEDS_ATTENTION', 'REFUNDED']);
    expect(tx.timeline.at(-1)!.detail).toBe(`resolved by operations: ${note}`);
    const balance = await expectLedgerInvariant(ref.organizationId);
    expect(balance).toMatchObject({ available: funded, held: 0n });
    const entries = (await listJournalEntries(ref.organizationId)).map((entry) => entry.entryId);
    expect(entries).toContain(`payment:${ref.transactionId}:release`);
    expect(entries).not.toContain(`payment:${ref.transactionId}:capture`);
    expect((await outboxTypes(ref.organizationId)).filter((type) => type === 'transaction.refunded')).toHaveLength(1);

    const before = await snapshot(ref.organizationId, () => payment(ref));
    expect(await resolvePayment({ ...ref, as: 'not-paid', note })).toMatchObject({ resolved: false, status: 'REFUNDED' });
    expect(await snapshot(ref.organizationId, () => payment(ref))).toEqual(before);
  });

  it('IN_DOUBT as not-paid and NEEDS_ATTENTION as paid', async () => {
    install();
    const doubt = await parkedPayment(94);
    expect(await resolvePayment({ ...doubt, as: 'not-paid', note })).toMatchObject({ resolved: true, status: 'REFUNDED' });
    expect(await expectLedgerInvariant(doubt.organizationId)).toMatchObject({ available: funded, held: 0n });
    const review = await parkedPayment(95);
    expect(await resolvePayment({ ...review, as: 'paid', note })).toMatchObject({ resolved: true, status: 'RECONCILED' });
    expect(await expectLedgerInvariant(review.organizationId)).toMatchObject({ available: funded - 100_950_000n, held: 0n });
  });

  it('a payment that is not parked is left alone', async () => {
    install();
    const ref = await parkedPayment(0);
    expect((await payment(ref)).state).toBe('RECONCILED');
    const before = await snapshot(ref.organizationId, () => payment(ref));
    expect(await resolvePayment({ ...ref, as: 'not-paid', note })).toMatchObject({ resolved: false, status: 'RECONCILED' });
    expect(await snapshot(ref.organizationId, () => payment(ref))).toEqual(before);
  });

  it('two operators at once with opposite answers: exactly one wins, the money moves once', async () => {
    install();
    const ref = await parkedPayment(94);
    const results = await Promise.all([resolvePayment({ ...ref, as: 'paid', note }), resolvePayment({ ...ref, as: 'not-paid', note })]);
    expect(results.filter((result) => result.resolved)).toHaveLength(1);
    const loser = results.find((result) => !result.resolved)!;
    expect(loser.detail).toMatch(/nothing changed/);
    const tx = await payment(ref);
    expect(['RECONCILED', 'REFUNDED']).toContain(tx.state);
    const balance = await expectLedgerInvariant(ref.organizationId);
    expect(balance.held).toBe(0n);
    const moved = (await listJournalEntries(ref.organizationId)).filter((entry) => /:(capture|release)$/.test(entry.entryId));
    expect(moved).toHaveLength(1);
  });

  it('a resolution as paid interrupted after PAID_OUT is finished by running it again', async () => {
    install();
    const ref = await parkedPayment(94);
    // The crash: PAID_OUT written by the resolution, the reconciliation not run.
    await paymentProgress.write(await payment(ref), { to: 'PAID_OUT', detail: `resolved by operations: ${note}` });
    expect(await resolvePayment({ ...ref, as: 'paid', note })).toMatchObject({ resolved: true, status: 'RECONCILED' });
    expect((await payment(ref)).timeline.map((entry) => entry.state).slice(-3)).toEqual(['IN_DOUBT', 'PAID_OUT', 'RECONCILED']);
    expect(await expectLedgerInvariant(ref.organizationId)).toMatchObject({ available: funded - 100_940_000n, held: 0n });
    expect(await resolvePayment({ ...ref, as: 'paid', note })).toMatchObject({ resolved: false, status: 'RECONCILED' });
  });

  it('refuses an empty note and an unknown payment', async () => {
    install();
    const ref = await parkedPayment(94);
    await expect(resolvePayment({ ...ref, as: 'paid', note: '   ' })).rejects.toThrow(/needs a note/);
    await expect(resolvePayment({ ...ref, transactionId: 'nope', as: 'paid', note })).rejects.toBeInstanceOf(OperationNotFound);
    expect((await payment(ref)).state).toBe('IN_DOUBT');
  });
});

describe('resolving a parked withdrawal', () => {
  const install = () => useChainSender(new SimulatedChain());

  it('IN_DOUBT as sent: SENT with the hash, the hold spent as a normal SENT, withdrawal.sent once', async () => {
    install();
    const ref = await parkedWithdrawal(94);
    expect((await withdrawal(ref)).status).toBe('IN_DOUBT');
    const amount = 50_940_000n;

    const result = await resolveWithdrawal({ ...ref, as: 'sent', note, txHash: hash.toUpperCase().replace('0X', '0x') });
    expect(result).toMatchObject({ resolved: true, status: 'SENT' });
    const record = await withdrawal(ref);
    expect(record.txHash).toBe(hash);
    expect(record.timeline.map((entry) => entry.status)).toEqual(['INITIATED', 'PULLING', 'HELD', 'SENDING', 'IN_DOUBT', 'SENT']);
    expect(record.timeline.at(-1)!.detail).toBe(`resolved by operations: ${note}`);
    const balance = await expectLedgerInvariant(ref.organizationId);
    expect(balance).toMatchObject({ available: funded - amount, held: 0n });
    const send = (await listJournalEntries(ref.organizationId)).find((entry) => entry.entryId === `withdrawal:${ref.withdrawalId}:send`)!;
    expect(send.legs).toContainEqual({ account: 'external:chain:base', amount: amount - 15_000n });
    expect(send.legs).toContainEqual({ account: 'expense:gas:base', amount: 15_000n });
    expect((await outboxTypes(ref.organizationId)).filter((type) => type === 'withdrawal.sent')).toHaveLength(1);

    const before = await snapshot(ref.organizationId, () => withdrawal(ref));
    expect(await resolveWithdrawal({ ...ref, as: 'sent', note, txHash: hash })).toMatchObject({ resolved: false, status: 'SENT' });
    expect(await resolveWithdrawal({ ...ref, as: 'not-sent', note })).toMatchObject({ resolved: false, status: 'SENT' });
    expect(await snapshot(ref.organizationId, () => withdrawal(ref))).toEqual(before);
  });

  it('NEEDS_ATTENTION as not-sent: RETURNED with the hold released, withdrawal.returned once', async () => {
    install();
    const ref = await parkedWithdrawal(95);
    expect((await withdrawal(ref)).status).toBe('NEEDS_ATTENTION');

    expect(await resolveWithdrawal({ ...ref, as: 'not-sent', note })).toMatchObject({ resolved: true, status: 'RETURNED' });
    const record = await withdrawal(ref);
    expect(record.timeline.at(-1)).toMatchObject({ status: 'RETURNED', detail: `resolved by operations: ${note}` });
    expect(record.txHash).toBeNull();
    expect(await expectLedgerInvariant(ref.organizationId)).toMatchObject({ available: funded, held: 0n });
    const entries = (await listJournalEntries(ref.organizationId)).map((entry) => entry.entryId);
    expect(entries).toContain(`withdrawal:${ref.withdrawalId}:release`);
    expect(entries).not.toContain(`withdrawal:${ref.withdrawalId}:send`);
    expect((await outboxTypes(ref.organizationId)).filter((type) => type === 'withdrawal.returned')).toHaveLength(1);

    const before = await snapshot(ref.organizationId, () => withdrawal(ref));
    expect(await resolveWithdrawal({ ...ref, as: 'not-sent', note })).toMatchObject({ resolved: false, status: 'RETURNED' });
    expect(await snapshot(ref.organizationId, () => withdrawal(ref))).toEqual(before);
  });

  it('IN_DOUBT as not-sent and NEEDS_ATTENTION as sent', async () => {
    install();
    const doubt = await parkedWithdrawal(94);
    expect(await resolveWithdrawal({ ...doubt, as: 'not-sent', note })).toMatchObject({ resolved: true, status: 'RETURNED' });
    expect(await expectLedgerInvariant(doubt.organizationId)).toMatchObject({ available: funded, held: 0n });
    const review = await parkedWithdrawal(95);
    expect(await resolveWithdrawal({ ...review, as: 'sent', note, txHash: hash })).toMatchObject({ resolved: true, status: 'SENT' });
    expect(await expectLedgerInvariant(review.organizationId)).toMatchObject({ available: funded - 50_950_000n, held: 0n });
  });

  it('parked with nothing held: not-sent is FAILED with no movement; sent is refused', async () => {
    const ref = await newWithdrawal(50_000_000n, 'NEEDS_ATTENTION');
    expect(await resolveWithdrawal({ ...ref, as: 'sent', note, txHash: hash })).toMatchObject({ resolved: false, status: 'NEEDS_ATTENTION' });
    expect(await resolveWithdrawal({ ...ref, as: 'not-sent', note })).toMatchObject({ resolved: true, status: 'FAILED' });
    const record = await withdrawal(ref);
    expect(record.failure).toBe('not_sent');
    expect((await listJournalEntries(ref.organizationId)).map((entry) => entry.entryId).filter((id) => id.startsWith('withdrawal:'))).toEqual([]);
    expect(await expectLedgerInvariant(ref.organizationId)).toMatchObject({ available: funded, held: 0n });
    expect((await outboxTypes(ref.organizationId)).filter((type) => type === 'withdrawal.failed')).toHaveLength(1);
  });

  it('a withdrawal that is not parked is left alone; sent needs a valid hash', async () => {
    install();
    const ref = await parkedWithdrawal(0);
    expect((await withdrawal(ref)).status).toBe('SENT');
    const before = await snapshot(ref.organizationId, () => withdrawal(ref));
    expect(await resolveWithdrawal({ ...ref, as: 'not-sent', note })).toMatchObject({ resolved: false, status: 'SENT' });
    expect(await snapshot(ref.organizationId, () => withdrawal(ref))).toEqual(before);

    const parked = await parkedWithdrawal(94);
    await expect(resolveWithdrawal({ ...parked, as: 'sent', note })).rejects.toMatchObject({ name: 'InvalidResolution' });
    await expect(resolveWithdrawal({ ...parked, as: 'sent', note, txHash: '0x1234' })).rejects.toMatchObject({ name: 'InvalidResolution' });
    await expect(resolveWithdrawal({ ...parked, as: 'not-sent', note, txHash: hash })).rejects.toMatchObject({ name: 'InvalidResolution' });
    expect((await withdrawal(parked)).status).toBe('IN_DOUBT');
  });
});

describe('admin resolve (the CLI glue)', () => {
  it('parses, resolves and answers the line it prints; refuses bad arguments before writing', async () => {
    useChainSender(new SimulatedChain());
    const ref = await parkedWithdrawal(94);
    const args = (extra: string[]) => [ref.organizationId, ref.withdrawalId, ...extra];

    await expect(resolveFromCli('withdrawal', args(['--as', 'sent', '--tx-hash', hash]))).rejects.toThrow(/--note is required/);
    await expect(resolveFromCli('withdrawal', args(['--as', 'paid', '--note', note]))).rejects.toThrow(/--as must be sent or not-sent/);
    await expect(resolveFromCli('withdrawal', args(['--as', 'not-sent', '--note', 'two\nlines']))).rejects.toThrow(/one line/);
    await expect(resolveFromCli('withdrawal', args(['--as', 'sent', '--note', note]))).rejects.toBeInstanceOf(ResolveUsageError);
    await expect(resolveFromCli('withdrawal', args(['--as', 'sent', '--note', note, '--bogus']))).rejects.toBeInstanceOf(ResolveUsageError);
    await expect(resolveFromCli('withdrawal', [ref.organizationId, 'missing', '--as', 'not-sent', '--note', note])).rejects.toThrow(/no withdrawal missing/);
    await expect(resolveFromCli('payment', args(['--as', 'paid', '--note', note, '--tx-hash', hash]))).rejects.toBeInstanceOf(ResolveUsageError);
    await expect(resolveFromCli('deposit', args(['--as', 'paid', '--note', note]))).rejects.toBeInstanceOf(ResolveUsageError);
    expect((await withdrawal(ref)).status).toBe('IN_DOUBT');

    const answer = await resolveFromCli('withdrawal', args(['--as', 'sent', '--note', note, '--tx-hash', hash]));
    expect(answer).toEqual({
      kind: 'withdrawal', organizationId: ref.organizationId, id: ref.withdrawalId, as: 'sent', resolved: true, status: 'SENT', detail: expect.stringContaining(hash),
    });
    expect(JSON.parse(JSON.stringify(answer))).toEqual(answer);
    expect(await resolveFromCli('withdrawal', args(['--as', 'sent', '--note', note, '--tx-hash', hash]))).toMatchObject({ resolved: false, status: 'SENT' });
  });
});
