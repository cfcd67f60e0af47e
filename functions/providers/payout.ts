import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { z } from 'zod';
import { providerPort } from '#platform/providerPorts.ts';
import { beneficiaryProblems, findCorridor } from '#domain/corridors.ts';
import { scaleOf } from '#domain/money.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import type { Beneficiary } from '#schemas/transactions.ts';
import { PayoutUnanswered, ProviderUnavailable } from '#platform/providerErrors.ts';
import { type OutcomeBand, centsOf } from './outcomeBands.ts';

export { PayoutUnanswered } from '#platform/providerErrors.ts';

/**
 * The payout provider port: pays the destination amount to the beneficiary on the route chosen
 * at pricing. `simulated` uses the simulator below; sandbox and production need a real adapter,
 * and until one is wired a payout fails loudly instead of inventing a success.
 */
export interface PayoutRequest {
  /** Unique per payment, `${organizationId}:${transactionId}`: the idempotency key at the provider. */
  reference: string;
  /** The route label chosen at pricing. */
  provider: string;
  corridor: { from: string; to: string; destinationCountry: string };
  /** Destination minor units to pay. */
  amount: bigint;
  currency: string;
  /** USDC minor units sent (scale 6); the simulator's outcome band is read from it. */
  sourceAmount: bigint;
  beneficiary: Beneficiary;
}

export type PayoutSubmission = { status: 'accepted'; providerPayoutId: string } | { status: 'rejected'; reason: string };

export type PayoutState =
  | { status: 'processing' }
  | { status: 'paid'; paidAmount: bigint }
  | { status: 'returned'; reason: string }
  | { status: 'failed'; reason: string }
  | { status: 'review'; reason: string }
  /** The provider has no record of this reference. */
  | { status: 'unknown' };

export interface PayoutProvider {
  readonly name: string;
  /**
   * Idempotent on `reference`: a repeat answers the first submission, never a second payout.
   * Throws ProviderUnavailable (nothing was created: retry) or PayoutUnanswered (it may have
   * landed: park IN_DOUBT, never resubmit blindly).
   */
  submit(request: PayoutRequest): Promise<PayoutSubmission>;
  status(reference: string): Promise<PayoutState>;
}

// ---------------------------------------------------------------------------------------------
// The simulator. Outcome bands (docs/decisions/040-corridors-and-outcome-bands.md) are keyed on
// the cents of the USDC sent: 100.91 USDC → band 91.

export const simulatedPayoutName = 'simulated-payout';

export const outcomeBands = {
  rejected: 91,
  returned: 92,
  unavailableTwice: 93,
  unanswered: 94,
  review: 95,
  shortPaid: 96,
  failedAfterAcceptance: 97,
} as const;

/** The bands as a tester reads them (GET /treasury/sandbox-prefill): cents of the USDC sent, and the payment's end. */
export const payoutOutcomeBands: readonly OutcomeBand[] = [
  { cents: outcomeBands.rejected, outcome: 'FAILED', description: 'The rail refuses the payout (beneficiary account closed); nothing was sent and the hold is released.' },
  { cents: outcomeBands.returned, outcome: 'REFUNDED', description: 'Paid, then returned by the beneficiary bank; the USDC comes back to the balance.' },
  { cents: outcomeBands.unavailableTwice, outcome: 'RECONCILED', description: 'The provider is unavailable twice (PENDING_RETRY), then pays.' },
  { cents: outcomeBands.unanswered, outcome: 'IN_DOUBT', description: 'The submit is never answered; the payment is parked and never submitted again.' },
  { cents: outcomeBands.review, outcome: 'NEEDS_ATTENTION', description: "Held by the provider's compliance review; funds stay held." },
  { cents: outcomeBands.shortPaid, outcome: 'RECONCILED', description: 'Paid one whole destination unit short; the status shows a payoutDelta.' },
  { cents: outcomeBands.failedAfterAcceptance, outcome: 'FAILED', description: 'Accepted, then rejected by the rail; the hold is released.' },
];

/** Submits of band 93 that answer ProviderUnavailable before one is accepted. */
export const unavailableAttempts = 2;

/** The band of a send amount: its cents, c = (sourceAmount / 10^4) mod 100. */
export function outcomeBand(sourceAmount: bigint): number {
  return centsOf(sourceAmount, 6);
}

/** Seconds a simulated payout stays `processing` after acceptance (PAYOUT_SETTLE_SECONDS, default 0). */
export function settleSeconds(): number {
  const text = process.env.PAYOUT_SETTLE_SECONDS;
  if (text === undefined || text === '') return 0;
  // Read on every call so a test or the launcher can change it; a bad value is a configuration error, not 0.
  if (!/^\d{1,6}$/.test(text)) throw new Error('PAYOUT_SETTLE_SECONDS must be a whole number of seconds');
  return Number(text);
}

/** The final state a payout of this band reaches, decided (and recorded) at acceptance. */
const outcomeSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('paid'), paidAmount: z.string().regex(/^\d+$/) }),
  z.object({ status: z.enum(['returned', 'failed', 'review']), reason: z.string() }),
]);

/** The simulator's book entry; amounts as decimal strings (a DynamoDB number would come back a float). */
const bookItemSchema = z.object({
  entity: z.literal('simulatedPayout'),
  reference: z.string(),
  providerPayoutId: z.string(),
  provider: z.string(),
  corridor: z.object({ from: z.string(), to: z.string(), destinationCountry: z.string() }),
  amount: z.string().regex(/^\d+$/),
  currency: z.string(),
  sourceAmount: z.string().regex(/^\d+$/),
  band: z.number().int(),
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
 * Keeps its book in the service's table, as a real provider keeps its own: a payout survives a
 * restart of the process, and a status query after one answers what was accepted before it.
 */
export class SimulatedPayouts implements PayoutProvider {
  readonly name = simulatedPayoutName;
  private readonly now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.now = options.now ?? (() => new Date());
  }

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
      if (first) return { status: 'accepted', providerPayoutId: first.providerPayoutId };
    }

    if (refused) return { status: 'rejected', reason: refused };
    if (band === outcomeBands.rejected) return { status: 'rejected', reason: 'beneficiary account closed' };
    if (band === outcomeBands.unanswered) {
      // Nothing is recorded: the status query then answers `unknown`, and only a person settles it.
      throw new PayoutUnanswered(`the payout provider did not answer for ${request.reference}`);
    }
    if (band === outcomeBands.unavailableTwice && (await this.countAttempt(request.reference)) <= unavailableAttempts) {
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
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.simulatedPayout(request.reference), ...item },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The reference was booked before (a repeat) or by a concurrent submit: answer that payout, never make a second.
      const winner = await this.read(request.reference);
      if (!winner) throw error;
      return { status: 'accepted', providerPayoutId: winner.providerPayoutId };
    }
    return { status: 'accepted', providerPayoutId: item.providerPayoutId };
  }

  async status(reference: string): Promise<PayoutState> {
    const item = await this.read(reference);
    if (!item) return { status: 'unknown' };
    const settledAt = Date.parse(item.acceptedAt) + settleSeconds() * 1000;
    if (this.now().getTime() < settledAt) return { status: 'processing' };
    const { outcome } = item;
    return outcome.status === 'paid' ? { status: 'paid', paidAmount: BigInt(outcome.paidAmount) } : outcome;
  }

  private async read(reference: string): Promise<BookItem | undefined> {
    const result = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.simulatedPayout(reference), ConsistentRead: true }));
    return result.Item ? bookItemSchema.parse(result.Item) : undefined;
  }

  /** Counts this submit attempt of a reference; answers the count including it. */
  private async countAttempt(reference: string): Promise<number> {
    const result = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.simulatedPayout(reference, 'attempts'),
        UpdateExpression: 'ADD #attempts :one SET #entity = :entity, #reference = :reference',
        ExpressionAttributeNames: { '#attempts': 'attempts', '#entity': 'entity', '#reference': 'reference' },
        ExpressionAttributeValues: { ':one': 1, ':entity': 'simulatedPayoutAttempts', ':reference': reference },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.attempts);
  }
}

const payoutProviderPort = providerPort<PayoutProvider>('payout', () => new SimulatedPayouts());

/** Wiring (or a test) installs another provider here; `undefined` goes back to the environment's default. */
export const usePayoutProvider = payoutProviderPort.use;

export const payoutProvider = payoutProviderPort.get;
