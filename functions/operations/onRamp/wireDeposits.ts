import { OperationNotFound } from '#operations/kit/errors.ts';
import { ulid } from 'ulid';
import { ApiError } from '#platform/errors.ts';
import { cancellationReasons } from '#store/client.ts';
import { createOperation, getOperation } from '#store/operations.ts';
import { getOrganization } from '#store/organizations.ts';
import type { TransactItem } from '#store/client.ts';
import {
  deleteOpenOnRamp, getStatementLine, listOpenOnRamps, parkedStatementLineReplace, parkStatementLine, statementLinePut, type StatementLineRecord,
} from '#store/statementLines.ts';
import { parseDepositReference, type ParsedDepositReference } from '#domain/depositReference.ts';
import { homeWalletOf } from '#operations/wallet/homeWallet.ts';
import { formatDecimal, scaleOf } from '#domain/money.ts';
import { operatorDetail, requireNote } from '#operations/kit/resolution.ts';
import { closeMarkerItems, onRampCreateOptions, depositIdPrefix, newOnRamp, wireInstructionsOf, type OnRampRecord } from '#operations/onRamp/view.ts';
import { startOnRampWorkflow } from '#operations/onRamp/intake.ts';
import { onRampProgress } from '#operations/onRamp/progress.ts';
import { houseAccountOf, onRampStablecoin, wireFeeBps, wireMaximum, wireMinimums } from '#operations/onRamp/pricing.ts';

/**
 * Incoming wires: one bank statement line at a time, as a house-bank feed adapter (or the sandbox's
 * simulate-wire) reports it. The reference the payer quoted decides everything; the amount never
 * does (docs/decisions/054-wire-onramps.md):
 *
 * - no reference, a mangled one (its check character fails), one naming no organization (or one
 *   not verified), a currency with no house account, or an amount below the minimum: the line
 *   PARKS, stored for manual reconciliation; nothing is credited and nothing is guessed;
 * - a valid reference and an api on-ramp of that currency AWAITING_PAYMENT: the line is
 *   `attributed` to the oldest such on-ramp (PAYMENT_RECEIVED, in one transaction with the line);
 * - a valid reference and none open: a deposit starts by itself, `dep-<ulid>`, origin `deposit`
 *   (`pending`), in one transaction with the line.
 *
 * The line's id makes ingestion idempotent: a line seen before answers what it did then and
 * changes nothing.
 */
export interface StatementLine {
  /** The bank's id of the line: unique per house account feed. */
  statementLineId: string;
  currency: string;
  /** Fiat minor units credited to the house account. */
  amount: bigint;
  /** The payer's free text (remittance information), where the reference should be. */
  referenceText: string;
  receivedAt?: Date;
}

export interface IngestedLine {
  statementLineId: string;
  disposition: StatementLineRecord['disposition'];
  organizationId: string | null;
  onRampId: string | null;
  detail: string;
}

/** References are looked for in the whole text, then in each word that starts like one: banks add their own words around it. */
export function referenceIn(text: string): ParsedDepositReference | undefined {
  const whole = parseDepositReference(text);
  if (whole) return whole;
  const found = new Map<string, ParsedDepositReference>();
  for (const word of text.split(/[^A-Za-z0-9-]+/)) {
    if (!/^ref/i.test(word)) continue;
    const parsed = parseDepositReference(word);
    if (parsed) found.set(parsed.organizationId, parsed);
  }
  // Two organizations named in one line: attributing it to either would be a guess.
  return found.size === 1 ? [...found.values()][0] : undefined;
}

export async function ingestStatementLine(line: StatementLine): Promise<IngestedLine> {
  if (!line.statementLineId || line.statementLineId.length > 200) throw new Error('a statement line needs an id of 1 to 200 characters');
  if (line.amount <= 0n) throw new Error(`statement line ${line.statementLineId}: a credit line has a positive amount`);
  const seen = await getStatementLine(line.statementLineId);
  if (seen) return answerOf(seen);

  const receivedAt = (line.receivedAt ?? new Date()).toISOString();
  const base: StatementLineRecord = {
    statementLineId: line.statementLineId,
    currency: line.currency,
    amount: line.amount.toString(),
    referenceText: line.referenceText.slice(0, 200),
    receivedAt,
    disposition: 'parked',
    detail: '',
    organizationId: null,
    onRampId: null,
  };
  const park = async (detail: string, organizationId: string | null = null) =>
    answerOf(await parkStatementLine({ ...base, disposition: 'parked', detail, organizationId }));

  if (!houseAccountTakes(line.currency)) return park(`no house account takes ${line.currency}: parked for manual reconciliation`);

  const parsed = referenceIn(line.referenceText);
  if (!parsed) return park('no valid deposit reference in the payment details (missing or mangled): parked for manual reconciliation, never matched on amount');
  const organization = await getOrganization(parsed.organizationId);
  if (!organization) return park('the reference names no organization: parked for manual reconciliation');
  const routed = await routeToOrganization(base, organization, { refuse: park, linePut: statementLinePut, now: new Date(receivedAt) });
  return routed.answer;
}

const houseAccountTakes = (currency: string) =>
  houseAccountOf(currency) !== undefined && wireMinimums[currency] !== undefined && scaleOf(currency) !== undefined;

interface Routing {
  /** What happens when the line cannot go to the organization (ingestion parks it; a resolution changes nothing). */
  refuse: (detail: string, organizationId: string | null) => Promise<IngestedLine>;
  /** The line's write, in the same transaction as the attribution or the deposit. */
  linePut: (line: StatementLineRecord) => TransactItem;
  /** When a deposit it starts is created. */
  now: Date;
  /** An operator's note, appended to what the line and the on-ramp record (a resolution). */
  note?: string;
}

/**
 * A line whose organization is known (the reference it quotes, or an operator who identified the
 * payer) goes to it: the oldest api on-ramp of its currency awaiting payment takes it
 * (`attributed`), or a `dep-` deposit starts (`pending`); what the organization cannot take is
 * refused. `written` is false when nothing was written here (refused, or a racing write won).
 */
async function routeToOrganization(
  base: StatementLineRecord,
  organization: { id: string; kybStatus: string },
  routing: Routing,
): Promise<{ answer: IngestedLine; written: boolean }> {
  const refused = async (detail: string, organizationId: string | null) => ({ answer: await routing.refuse(detail, organizationId), written: false });
  const noted = (detail: string) => (routing.note ? `${detail}; ${operatorDetail(routing.note)}` : detail);
  const amount = BigInt(base.amount);
  const account = houseAccountOf(base.currency);
  const minimum = wireMinimums[base.currency];
  if (!account || minimum === undefined || scaleOf(base.currency) === undefined) return refused(`no house account takes ${base.currency}: parked for manual reconciliation`, null);
  const organizationId = organization.id;
  if (organization.kybStatus !== 'approved') return refused('the organization is not verified (KYB): parked for manual reconciliation', organizationId);
  const amountText = `${formatDecimal(amount, scaleOf(base.currency)!)} ${base.currency}`;
  if (amount > wireMaximum) return refused(`${amountText} is above the largest wire one deposit takes: parked for manual reconciliation`, organizationId);
  if (amount < minimum) {
    return refused(`${amountText} is below the on-ramp minimum of ${formatDecimal(minimum, scaleOf(base.currency)!)} ${base.currency}: parked for manual reconciliation (returned to the payer or credited by hand)`, organizationId);
  }

  // An api on-ramp waiting for this currency takes it: the oldest first.
  for (const marker of await listOpenOnRamps(organizationId, base.currency)) {
    const onRamp = await getOperation<OnRampRecord>(organizationId, 'onramp', marker.onRampId);
    if (!onRamp || (onRamp.status !== 'AWAITING_PAYMENT' && onRamp.status !== 'OPENING_COLLECTION')) {
      await deleteOpenOnRamp(marker); // left behind by a move that did not close it: tidy up
      continue;
    }
    if (onRamp.status !== 'AWAITING_PAYMENT') continue;
    const detail = noted(`wire of ${amountText} received (statement line ${base.statementLineId})`);
    const attributed: StatementLineRecord = { ...base, disposition: 'attributed', detail: noted(`attributed to on-ramp ${onRamp.id}`), organizationId, onRampId: onRamp.id };
    try {
      // The kit's one conditional move, with the line and the open marker's removal in its transaction.
      const moved = await onRampProgress.write(onRamp, {
        to: 'PAYMENT_RECEIVED',
        detail,
        set: { received: base.amount, statementLineId: base.statementLineId },
        extraItems: [routing.linePut(attributed), ...closeMarkerItems(onRamp)],
      });
      if (!moved) continue; // expired or moved on meanwhile: the next one, or a deposit of its own
    } catch (error) {
      const raced = await lineIngestedMeanwhile(base.statementLineId, error);
      if (raced) return { answer: raced, written: false };
      throw error;
    }
    await startOnRampWorkflow(organizationId, onRamp.id);
    return { answer: answerOf(attributed), written: true };
  }

  let home;
  try {
    home = await homeWalletOf(organizationId);
  } catch (error) {
    if (error instanceof ApiError) return refused(`the organization has no single home wallet to deliver to (${error.code}): parked for manual reconciliation`, organizationId);
    throw error;
  }
  const depositId = `${depositIdPrefix}${ulid(routing.now.getTime())}`;
  const record = newOnRamp({
    organizationId,
    id: depositId,
    status: 'PAYMENT_RECEIVED',
    origin: 'deposit',
    rail: 'wire',
    currency: base.currency,
    amount: base.amount,
    received: base.amount,
    statementLineId: base.statementLineId,
    targetStablecoin: onRampStablecoin,
    instructions: wireInstructionsOf(organizationId, account),
    expiresAt: null,
    feeBps: wireFeeBps,
    now: routing.now,
    timeline: [
      {
        status: 'PAYMENT_RECEIVED',
        detail: noted(
          routing.note
            ? `wire of ${amountText} received (statement line ${base.statementLineId}), attributed by operations; delivering to ${home.id}`
            : `wire of ${amountText} received quoting the reference, with no deposit open (statement line ${base.statementLineId}); delivering to ${home.id}`,
        ),
      },
    ],
  });
  const pending: StatementLineRecord = { ...base, disposition: 'pending', detail: noted(`started deposit ${depositId}`), organizationId, onRampId: depositId };
  try {
    await createOperation(record, onRampCreateOptions(record, [routing.linePut(pending)]));
  } catch (error) {
    const raced = await lineIngestedMeanwhile(base.statementLineId, error);
    if (raced) return { answer: raced, written: false };
    throw error;
  }
  await startOnRampWorkflow(organizationId, depositId);
  return { answer: answerOf(pending), written: true };
}

export interface LineResolution extends IngestedLine {
  resolved: boolean;
}

/**
 * A PARKED line attributed by operations, once a person identified the payer: it goes to the
 * organization exactly as a wire quoting its reference would (an api on-ramp awaiting payment
 * takes it, or a `dep-` deposit starts), in one transaction with the line leaving the queue. A
 * line not parked (or attributed meanwhile), or one the organization cannot take (not verified,
 * below the minimum, ...), is refused: nothing changes and `detail` says why.
 */
export async function resolveParkedLine(input: { statementLineId: string; organizationId: string; note: string }): Promise<LineResolution> {
  const note = requireNote(input.note);
  const line = await getStatementLine(input.statementLineId);
  if (!line) throw new OperationNotFound('statement line', input.statementLineId);
  if (line.disposition !== 'parked') {
    return { ...answerOf(line), resolved: false, detail: `statement line ${line.statementLineId} is ${line.disposition}, not parked (${line.detail}): nothing changed` };
  }
  const organization = await getOrganization(input.organizationId);
  if (!organization) return { ...answerOf(line), resolved: false, detail: `no organization ${input.organizationId}: nothing changed` };
  const routed = await routeToOrganization(line, organization, {
    refuse: async (detail) => ({ ...answerOf(line), detail: `refused, still parked: ${detail.replace(/: parked for manual reconciliation.*$/, '')}` }),
    linePut: parkedStatementLineReplace,
    now: new Date(),
    note,
  });
  if (routed.written) return { ...routed.answer, resolved: true };
  const now = routed.answer;
  return {
    ...now,
    resolved: false,
    detail: now.disposition === 'parked' ? now.detail : `statement line ${line.statementLineId} was ${now.disposition} meanwhile (${now.detail}): nothing changed`,
  };
}

/** A racing ingestion of the same line won (our transaction was cancelled): answer what it did. */
async function lineIngestedMeanwhile(statementLineId: string, error: unknown): Promise<IngestedLine | undefined> {
  const cancelled = cancellationReasons(error) ?? (error as { reasons?: unknown[] }).reasons;
  if (!cancelled) return undefined;
  const stored = await getStatementLine(statementLineId);
  return stored ? answerOf(stored) : undefined;
}

function answerOf(line: StatementLineRecord): IngestedLine {
  return { statementLineId: line.statementLineId, disposition: line.disposition, organizationId: line.organizationId, onRampId: line.onRampId, detail: line.detail };
}
