import { ulid } from 'ulid';
import * as z from 'zod/mini';
import { beneficiaryProblems, findCorridor } from '#domain/corridors.ts';
import { scaleOf } from '#domain/money.ts';
import { centsOf, outcomeBands } from '#contract/outcomeBands.ts';
import { PayoutUnanswered, ProviderUnavailable } from '#platform/providerErrors.ts';
import { keys } from '#store/keys.ts';
import type { PayoutProvider, PayoutRequest, PayoutState, PayoutSubmission } from '#providers/payout.ts';
import { countAttempt, firstEntry, readEntry, secondsFrom, Simulator } from './book.ts';

/**
 * The payout simulator: a bank rail that pretends. Outcome bands (docs/decisions/040,
 * functions/contract/outcomeBands.ts) are keyed on the cents of the USDC sent: 100.91 USDC → band 91.
 */
export const simulatedPayoutName = 'simulated-payout';

/** Submits of band 93 that answer ProviderUnavailable before one is accepted. */
export const unavailableAttempts = 2;

/** The band of a send amount: its cents, c = (sourceAmount / 10^4) mod 100. */
export function outcomeBand(sourceAmount: bigint): number {
  return centsOf(sourceAmount, 6);
}

/** Seconds a simulated payout stays `processing` after acceptance (PAYOUT_SETTLE_SECONDS, default 0). */
export function settleSeconds(): number {
  return secondsFrom('PAYOUT_SETTLE_SECONDS');
}

/** The final state a payout of this band reaches, decided (and recorded) at acceptance. */
const outcomeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('paid'), paidAmount: z.string().check(z.regex(/^\d+$/)) }),
  z.object({ status: z.enum(['returned', 'failed', 'review']), reason: z.string() }),
]);

/** The simulator's book entry; amounts as decimal strings (a DynamoDB number would come back a float). */
const bookItemSchema = z.object({
  entity: z.literal('simulatedPayout'),
  reference: z.string(),
  providerPayoutId: z.string(),
  provider: z.string(),
  corridor: z.object({ from: z.string(), to: z.string(), destinationCountry: z.string() }),
  amount: z.string().check(z.regex(/^\d+$/)),
  currency: z.string(),
  sourceAmount: z.string().check(z.regex(/^\d+$/)),
  band: z.number().check(z.int()),
  acceptedAt: z.string(),
  outcome: outcomeSchema,
});
type BookItem = z.infer<typeof bookItemSchema>;

function finalOutcome(band: number, amount: bigint, scale: number): BookItem['outcome'] {
  switch (band) {
    case outcomeBands.returned:
      return { status: 'returned', reason: 'returned by the beneficiary bank' };
    case outcomeBands.review:
      return { status: 'review', reason: "held by the provider's compliance review" };
    case outcomeBands.failedAfterAcceptance:
      return { status: 'failed', reason: 'rail rejected after acceptance' };
    case outcomeBands.shortPaid: {
      // One whole destination unit short, as when a correspondent deducts a charge on the way.
      const short = amount - 10n ** BigInt(scale);
      return { status: 'paid', paidAmount: (short > 0n ? short : 0n).toString() };
    }
    default:
      return { status: 'paid', paidAmount: amount.toString() };
  }
}

/** What the rail refuses before accepting anything; no value of the beneficiary is repeated. */
function refusal(request: PayoutRequest): string | undefined {
  const { from, to, destinationCountry } = request.corridor;
  const corridor = findCorridor(from, to, destinationCountry);
  if (!corridor) return `corridor ${from}→${to} (${destinationCountry}) is not served`;
  if (!corridor.routes.some((route) => route.provider === request.provider)) return `route ${request.provider} does not serve this corridor`;
  if (request.currency !== corridor.to) return `currency ${request.currency} does not match the corridor (${corridor.to})`;
  if (request.amount <= 0n) return 'amount must be positive';
  const problems = beneficiaryProblems(corridor, request.beneficiary);
  const reasons = [
    ...(problems.missing.length > 0 ? [`beneficiary incomplete: missing ${problems.missing.join(', ')}`] : []),
    ...problems.invalid.map((problem) => `${problem.path.join('.')} ${problem.message}`),
  ];
  return reasons.length > 0 ? reasons.join('; ') : undefined;
}

/**
 * Keeps its book in the service's table (./book.ts), as a real provider keeps its own: a payout
 * survives a restart of the process, and a status query after one answers what was accepted before it.
 */
export class SimulatedPayouts extends Simulator implements PayoutProvider {
  readonly name = simulatedPayoutName;
  async submit(request: PayoutRequest): Promise<PayoutSubmission> {
    if (!request.reference) throw new Error('reference is required');
    const refused = refusal(request);
    const band = outcomeBand(request.sourceAmount);
    const scale = scaleOf(request.currency);
    // A payout this request would have accepted outright is booked at once: the conditional Put is
    // also the repeat check (a first submission of the reference wins). Anything else reads the book
    // first, since a repeat answers the first submission, whatever it carries this time.
    const plainAcceptance = !refused && scale !== undefined && band !== outcomeBands.rejected && band !== outcomeBands.unanswered && band !== outcomeBands.unavailableTwice;
    if (!plainAcceptance) {
      const first = await this.read(request.reference);
      if (first) return this.acceptance(first);
    }

    if (refused) return { status: 'rejected', reason: refused };
    if (band === outcomeBands.rejected) return { status: 'rejected', reason: 'beneficiary account closed' };
    if (band === outcomeBands.unanswered) {
      // Nothing is recorded: the status query then answers `unknown`, and only a person settles it.
      throw new PayoutUnanswered(`the payout provider did not answer for ${request.reference}`);
    }
    if (band === outcomeBands.unavailableTwice && (await countAttempt(keys.simulatedPayout(request.reference, 'attempts'), 'simulatedPayoutAttempts', request.reference)) <= unavailableAttempts) {
      throw new ProviderUnavailable('the payout provider is momentarily unavailable');
    }

    if (scale === undefined) return { status: 'rejected', reason: `currency ${request.currency} is not paid out` };
    const item: BookItem = {
      entity: 'simulatedPayout',
      reference: request.reference,
      providerPayoutId: `sim-po-${ulid()}`,
      provider: request.provider,
      corridor: { from: request.corridor.from, to: request.corridor.to, destinationCountry: request.corridor.destinationCountry },
      amount: request.amount.toString(),
      currency: request.currency,
      sourceAmount: request.sourceAmount.toString(),
      band,
      acceptedAt: this.now().toISOString(),
      outcome: finalOutcome(band, request.amount, scale),
    };
    // The reference booked before (a repeat) or by a concurrent submit: answer that payout, never make a second.
    const booked = await firstEntry(keys.simulatedPayout(request.reference), item, bookItemSchema);
    return this.acceptance(booked);
  }

  async status(reference: string): Promise<PayoutState> {
    const item = await this.read(reference);
    return item ? this.stateOf(item) : { status: 'unknown' };
  }

  /** Accepted; paid at once when the payout is already paid (PAYOUT_SETTLE_SECONDS 0), as an instant rail answers. */
  private acceptance(item: BookItem): PayoutSubmission {
    const state = this.stateOf(item);
    return state.status === 'paid'
      ? { status: 'accepted', providerPayoutId: item.providerPayoutId, paidAmount: state.paidAmount }
      : { status: 'accepted', providerPayoutId: item.providerPayoutId };
  }

  private stateOf(item: BookItem): PayoutState {
    const settledAt = Date.parse(item.acceptedAt) + settleSeconds() * 1000;
    if (this.now().getTime() < settledAt) return { status: 'processing' };
    const { outcome } = item;
    return outcome.status === 'paid' ? { status: 'paid', paidAmount: BigInt(outcome.paidAmount) } : outcome;
  }

  private read(reference: string): Promise<BookItem | undefined> {
    return readEntry(keys.simulatedPayout(reference), bookItemSchema);
  }
}
