import { randomUUID } from 'node:crypto';
import { logger } from '#platform/logger.ts';
import { ApiError, validationError, type ValidationIssue } from '#platform/errors.ts';
import { operationMoved } from '#platform/metrics.ts';
import { InsufficientFunds, TransactionConflict } from '#store/ledger.ts';
import { batchGetAll } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { recipientView } from '#store/recipients.ts';
import {
  batchItemId, claimBatchIntake, commitBatch, getBatch, putBatchItems, putRejectedBatch, releaseBatchIntake, type BatchItemRecord, type BatchRecord,
} from '#store/batches.ts';
import { beneficiaryProblems, type CorridorDefinition } from '#domain/corridors.ts';
import { AmountError, formatDecimal, parseDecimal } from '#domain/money.ts';
import { hashRequest } from '#domain/requestHash.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { corridorOf, PricingUnavailable, routePricer, sendCurrency } from '#operations/quote/quoting.ts';
import { keyConflict } from '#operations/kit/intake.ts';
import { startAfterCommit } from '#operations/kit/start.ts';
import type { BatchAccepted, BatchItemInput, CreateBatchBody } from '#schemas/batches.ts';
import type { Beneficiary } from '#schemas/transactions.ts';
import type { Recipient } from '#schemas/recipients.ts';

const noun = 'batch';

/** The batch's initiate tokens, one per item (the first was charged on arrival). */
export interface ItemTokens {
  /** Throws the 429 of a batch larger than the bucket can ever hold: known without a read. */
  refuseWhatCanNeverPass: (itemCount: number) => void;
  /** Charges the further tokens, once the batch is known to be valid. */
  charge: (itemCount: number) => Promise<void>;
}

/**
 * POST /batches: the whole batch is checked before anything moves (every item, every rule; a
 * refusal names the items), then its items are written as accepted and ONE transaction stores the
 * batch with its one funding transfer (the total, available → held) and the event that starts its
 * workflow. A balance that cannot cover the total stores the batch REJECTED, nothing held. The
 * batchId is the idempotency key: the same body answers the same, another body is 409.
 */
export async function acceptBatch(organizationId: string, body: CreateBatchBody, tokens: ItemTokens): Promise<BatchAccepted> {
  // What can never pass is refused before any read: not after a thousand lookups (issue 25, item 5).
  tokens.refuseWhatCanNeverPass(body.items.length);
  const sends = body.items.map((item, index) => sendOf(item, index));
  const problems = sends.flatMap((send) => ('problem' in send ? [send] : []));
  // The meaning of the body: amounts as minor units, so "100" and "100.00" are one batch.
  const requestHash = hashRequest({
    ...body,
    items: body.items.map((item, index) => {
      const send = sends[index]!;
      return { ...item, sendAmount: 'minor' in send ? { amount: send.minor, currency: item.sendAmount.currency } : item.sendAmount };
    }),
  });
  const earlier = await answerForExisting(organizationId, body.batchId, requestHash);
  if (earlier) return earlier;

  duplicateItemRefs(body.items);
  if (problems.length > 0) {
    throw new ApiError('invalid_send_amount', `${problems.length} item(s) have a send amount that cannot be sent: ${problems.slice(0, 5).map((p) => `${p.itemRef} (${p.problem})`).join('; ')}.`, {
      items: problems.map(({ index, itemRef, problem }) => ({ index, itemRef, problem })),
    });
  }
  const corridor = corridorOf(body.corridor);
  if (!corridor.routes.some((route) => route.provider === body.provider)) {
    throw validationError([{ path: ['provider'], message: `not a rail of this corridor; use one of: ${corridor.routes.map((route) => route.provider).join(', ')}` }]);
  }

  // One request at a time reads, prices and writes a batchId's intake; the same batch sent again
  // meanwhile (an integrator's retry storm) waits for its answer instead of doing it all again.
  const holder = randomUUID();
  try {
    const storedMeanwhile = await claimIntake(organizationId, body.batchId, requestHash, holder);
    if (storedMeanwhile) return storedMeanwhile;
    return await acceptClaimed(organizationId, body, tokens, { requestHash, sends, corridor });
  } catch (error) {
    // Refused, or failed before its batch was stored (the claim's own answer lost included): the
    // next request need not wait out the lease. Only this holder's claim is deleted; one left
    // behind lapses with its lease anyway, so a failed release is logged and changes no answer.
    await releaseBatchIntake(organizationId, body.batchId, holder).catch((releaseError: unknown) =>
      logger.warn('batch intake claim not released: the batchId waits out its lease', { batchId: body.batchId, error: releaseError as Error }),
    );
    throw error;
  }
}

/** The claim's lease: past the holder's function timeout (10 s), so a live holder never loses it. */
const intakeLeaseMs = 15_000;
/** How long a request waits on another one's intake of its batchId before its 503: well inside its own timeout. */
const intakeWaitMs = 5_000;

/**
 * Holds the claim of the batchId's intake for this request (undefined), or, while another request
 * holds it, waits for that one: its batch's answer once stored (the same answer, or 409 for another
 * body), the claim once it is given up (refused, or its holder died and the lease ran out). Past
 * intakeWaitMs, the contract's 503: send it again.
 */
async function claimIntake(organizationId: string, batchId: string, requestHash: string, holder: string): Promise<BatchAccepted | undefined> {
  const giveUpAt = Date.now() + intakeWaitMs;
  for (let pauseMs = 50; ; pauseMs = Math.min(pauseMs * 2, 400)) {
    if (await claimBatchIntake(organizationId, batchId, holder, intakeLeaseMs)) return undefined;
    if (Date.now() + pauseMs > giveUpAt) {
      throw new ApiError('unavailable', `Another request with batchId ${batchId} is being accepted right now; send this one again (same batchId): it answers what that one stored.`, {}, { 'retry-after': '1' });
    }
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    // Not started again from here: its holder starts it, or, if it died first, its batch.accepted
    // event and the sweeper do; fifty waiters need not each call StartExecution.
    const stored = await answerForExisting(organizationId, batchId, requestHash, { startIfAccepted: false });
    if (stored) return stored;
  }
}

/** The intake proper, under the claim: every read, the price, the item writes and the one commit. */
async function acceptClaimed(
  organizationId: string,
  body: CreateBatchBody,
  tokens: ItemTokens,
  { requestHash, sends, corridor }: { requestHash: string; sends: ItemSend[]; corridor: CorridorDefinition },
): Promise<BatchAccepted> {
  // The three reads go out together (on a busy table each waits its turn in the queue, so one after
  // another they cost three waits); their refusals are still said in this order.
  const [homeNetwork, beneficiaries, paymentsNamedLikeItems] = await allInOrder(
    homeNetworkOf(organizationId, body.integratorWalletId),
    resolveBeneficiaries(organizationId, body.items),
    paymentIdsTaken(organizationId, body),
  );
  beneficiaryIssues(corridor, body.items, beneficiaries);
  await pricedOnRoute(corridor, body, homeNetwork, sends.map((send) => (send as { minor: bigint }).minor));
  noPaymentNamedLikeAnItem(body, paymentsNamedLikeItems);

  // Valid: now the batch costs one initiate token per item (the first was charged on arrival).
  await tokens.charge(body.items.length);

  const now = new Date();
  const at = now.toISOString();
  const total = sends.reduce((sum, send) => sum + (send as { minor: bigint }).minor, 0n);
  const batch: BatchRecord = {
    organizationId,
    batchId: body.batchId,
    state: 'ACCEPTED',
    requestHash,
    generation: requestHash.slice(0, 16),
    corridor: { from: corridor.from, to: corridor.to, destinationCountry: corridor.destinationCountry },
    provider: body.provider,
    chain: homeNetwork,
    itemCount: body.items.length,
    total: total.toString(),
    originator: body.originator ?? null,
    startedThrough: 0,
    createdAt: at,
    updatedAt: at,
  };
  const items: BatchItemRecord[] = body.items.map((item, index) => ({
    organizationId,
    batchId: body.batchId,
    index,
    itemRef: item.itemRef,
    transactionId: batchItemId(body.batchId, item.itemRef),
    send: (sends[index] as { minor: bigint }).minor.toString(),
    recipientReference: item.recipientReference,
    beneficiary: beneficiaries[index]!,
    recipientId: item.recipientId ?? null,
  }));
  await putBatchItems(batch, items);

  try {
    await commitBatch(batch, {
      organizationId,
      entryId: `batch:${body.batchId}:hold`,
      operation: { kind: 'batch', id: body.batchId },
      legs: [
        { account: 'available', amount: -total },
        { account: 'held', amount: total },
      ],
      memo: `one funding transfer for batch ${body.batchId} (${items.length} items)`,
      now,
    });
  } catch (error) {
    // A racing identical request may have won: answer what it stored.
    const raced = await answerForExisting(organizationId, body.batchId, requestHash);
    if (raced) return raced;
    if (!(error instanceof InsufficientFunds)) {
      if (error instanceof TransactionConflict) throw keyConflict(noun);
      throw error;
    }
    const rejected: BatchRecord = {
      ...batch,
      state: 'REJECTED',
      rejectedReason: `insufficient_funds: the batch needs ${formatDecimal(total, 6)} USDC and the home wallet has ${formatDecimal(error.available, 6)} USDC available; nothing was held and no item started`,
    };
    if (!(await putRejectedBatch(rejected))) {
      const stored = await answerForExisting(organizationId, body.batchId, requestHash);
      if (!stored) throw keyConflict(noun);
      return stored;
    }
    operationMoved('batch', 'REJECTED');
    return accepted(rejected);
  }
  operationMoved('batch', 'ACCEPTED');
  await startAfterCommit('batch', organizationId, body.batchId);
  return accepted(batch);
}

function accepted(batch: BatchRecord): BatchAccepted {
  const total = `${formatDecimal(BigInt(batch.total), 6)} USDC`;
  return {
    batchId: batch.batchId,
    state: batch.state,
    itemCount: batch.itemCount,
    note:
      batch.state === 'REJECTED'
        ? `Refused as a whole: ${batch.rejectedReason}. Fund the balance and send the batch again under a new batchId.`
        : `Funded in one transfer of ${total}; each of the ${batch.itemCount} items is paid as its own payment <batchId>:<itemRef>. Follow them with GET /batches/${batch.batchId}.`,
  };
}

/** The same batchId again: the same answer for the same batch, 409 for another. */
async function answerForExisting(organizationId: string, batchId: string, requestHash: string, { startIfAccepted = true } = {}): Promise<BatchAccepted | undefined> {
  const existing = await getBatch(organizationId, batchId);
  if (!existing) return undefined;
  if (existing.requestHash !== requestHash) throw keyConflict(noun);
  // A retry after a crash between the commit and the start: starting again is refused by the engine when it already runs.
  if (startIfAccepted && existing.state === 'ACCEPTED') await startAfterCommit('batch', organizationId, batchId);
  return accepted(existing);
}

type ItemSend = { index: number; itemRef: string; minor: bigint } | { index: number; itemRef: string; problem: string };

/** An item's send amount in USDC minor units, or why it cannot be sent: exact, positive, USDC (every item the same currency). */
function sendOf(item: BatchItemInput, index: number): ItemSend {
  const { itemRef } = item;
  if (item.sendAmount.currency !== sendCurrency) return { index, itemRef, problem: `currency must be ${sendCurrency}, the one currency of a batch` };
  try {
    const minor = parseDecimal(item.sendAmount.amount, 6);
    return minor > 0n ? { index, itemRef, minor } : { index, itemRef, problem: 'must be greater than 0' };
  } catch (error) {
    if (error instanceof AmountError) return { index, itemRef, problem: error.message };
    throw error;
  }
}

function duplicateItemRefs(items: BatchItemInput[]): void {
  const firstIndex = new Map<string, number>();
  const duplicates: { index: number; itemRef: string; firstIndex: number }[] = [];
  items.forEach((item, index) => {
    const first = firstIndex.get(item.itemRef);
    if (first === undefined) firstIndex.set(item.itemRef, index);
    else duplicates.push({ index, itemRef: item.itemRef, firstIndex: first });
  });
  if (duplicates.length > 0) {
    throw new ApiError('duplicate_item_ref', `itemRef must be unique within a batch: ${[...new Set(duplicates.map((d) => d.itemRef))].slice(0, 5).join(', ')} repeated.`, { items: duplicates });
  }
}

/** Each item's beneficiary: its own, or its saved recipient's (of this organization; another's is unknown). */
async function resolveBeneficiaries(organizationId: string, items: BatchItemInput[]): Promise<Beneficiary[]> {
  const ids = [...new Set(items.flatMap((item) => (item.recipientId ? [item.recipientId] : [])))];
  const found = new Map<string, Recipient>();
  if (ids.length > 0) {
    for (const item of await batchGetAll(ids.map((id) => keys.recipient(organizationId, id)))) {
      const recipient = recipientView(item);
      found.set(recipient.id, recipient);
    }
  }
  const unknown = items.flatMap((item, index) => (item.recipientId && !found.has(item.recipientId) ? [{ index, itemRef: item.itemRef, recipientId: item.recipientId }] : []));
  if (unknown.length > 0) {
    throw new ApiError('unknown_recipient', `${unknown.length} item(s) name a recipient this organization has not saved: ${unknown.slice(0, 5).map((u) => u.itemRef).join(', ')}.`, { items: unknown });
  }
  const issues: ValidationIssue[] = [];
  const beneficiaries = items.map((item, index) => {
    if (item.beneficiary) return item.beneficiary;
    const recipient = found.get(item.recipientId!)!;
    if (recipient.type !== 'bank' || !recipient.account) {
      issues.push({ path: ['items', index, 'recipientId'], message: `recipient ${recipient.id} is a wallet; a batch pays bank accounts on its rail (item ${item.itemRef})` });
    }
    return beneficiaryOf(recipient);
  });
  if (issues.length > 0) throw validationError(issues, 'Some items cannot be paid to their saved recipient.');
  return beneficiaries;
}

/** A saved bank recipient as a payment's beneficiary. */
function beneficiaryOf(recipient: Recipient): Beneficiary {
  const beneficiary: Beneficiary = { name: recipient.name, account: recipient.account ?? '' };
  const optional = { bankCode: recipient.bankCode, bic: recipient.bic, bankName: recipient.bankName, country: recipient.country, city: recipient.city, addressLine: recipient.addressLine, state: recipient.state, postalCode: recipient.postalCode };
  for (const [field, value] of Object.entries(optional)) if (value !== null) (beneficiary as Record<string, unknown>)[field] = value;
  if (recipient.phoneCallingCode && recipient.phoneNumber) beneficiary.phone = { callingCode: recipient.phoneCallingCode, number: recipient.phoneNumber };
  return beneficiary;
}

/** What the corridor's rail would refuse about each item's beneficiary, every item at once. */
function beneficiaryIssues(corridor: CorridorDefinition, items: BatchItemInput[], beneficiaries: Beneficiary[]): void {
  const issues: ValidationIssue[] = [];
  beneficiaries.forEach((beneficiary, index) => {
    const where = items[index]!.beneficiary ? ['items', index, 'beneficiary'] : ['items', index, 'recipientId'];
    const problems = beneficiaryProblems(corridor, beneficiary);
    for (const field of problems.missing) issues.push({ path: [...where, field], message: `this corridor needs the beneficiary's ${field} (item ${items[index]!.itemRef})` });
    for (const issue of problems.invalid) issues.push({ path: [...where, ...issue.path.filter((part) => part !== 'beneficiary')], message: `${issue.message} (item ${items[index]!.itemRef})` });
  });
  if (issues.length > 0) throw validationError(issues, `${new Set(issues.map((issue) => issue.path[1])).size} item(s) cannot be paid on this corridor's rail.`);
}

/** Every amount priced on the batch's rail at today's rate: one too small to pay anything is refused now, not after funding. */
async function pricedOnRoute(corridor: CorridorDefinition, body: CreateBatchBody, homeNetwork: string, sends: bigint[]): Promise<void> {
  let pricer;
  try {
    pricer = await routePricer({ corridor, provider: body.provider, homeNetwork });
  } catch (error) {
    if (error instanceof PricingUnavailable) throw new ApiError('unavailable', 'The pricing source is momentarily unavailable; retry with the same batchId.');
    throw error;
  }
  const refused = sends.flatMap((send, index) => {
    const priced = pricer(send);
    return 'refused' in priced ? [{ index, itemRef: body.items[index]!.itemRef, refused: priced.refused, problem: priced.message }] : [];
  });
  if (refused.some((item) => item.refused === 'no_route_for_chain')) {
    throw validationError([{ path: ['provider'], message: refused[0]!.problem }]);
  }
  if (refused.length > 0) {
    throw new ApiError('invalid_send_amount', `${refused.length} item(s) do not cover the rail's fees and one whole unit of ${corridor.to}: ${refused.slice(0, 5).map((r) => r.itemRef).join(', ')}.`, {
      items: refused.map(({ index, itemRef, problem }) => ({ index, itemRef, problem })),
    });
  }
}

/** The network of the home wallet the batch is funded from. */
async function homeNetworkOf(organizationId: string, integratorWalletId: string | undefined): Promise<string> {
  const home = await homeWalletOf(organizationId, integratorWalletId);
  if (!home.chain) throw new ApiError('wallet_chain_unknown', 'The home wallet has no network yet (it is still being opened); retry shortly.');
  return home.chain;
}

/** The ids of the batch's items that already name a payment of this organization. */
async function paymentIdsTaken(organizationId: string, body: CreateBatchBody): Promise<Set<string>> {
  const existing = await batchGetAll(body.items.map((item) => keys.transaction(organizationId, batchItemId(body.batchId, item.itemRef))));
  return new Set(existing.map((item) => String(item.transactionId)));
}

/**
 * Awaits every promise, then answers their values or throws the first one's error in the order
 * given (not the first to fail in time): the refusal a request gets does not depend on which read
 * came back first.
 */
async function allInOrder<T extends unknown[]>(...promises: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(promises);
  for (const outcome of settled) if (outcome.status === 'rejected') throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as T;
}

/** An item's id must not already name a payment of this organization: that payment is never touched. */
function noPaymentNamedLikeAnItem(body: CreateBatchBody, taken: Set<string>): void {
  if (taken.size === 0) return;
  const issues = body.items.flatMap((item, index) =>
    taken.has(batchItemId(body.batchId, item.itemRef)) ? [{ path: ['items', index, 'itemRef'], message: `${batchItemId(body.batchId, item.itemRef)} already names a payment; choose another itemRef or batchId` }] : [],
  );
  throw validationError(issues, 'Some items would have the id of an existing payment.');
}
