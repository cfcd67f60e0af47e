import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { z } from 'zod';
import { providerPort } from '#platform/providerPorts.ts';
import { ibanChecksumValid } from '#domain/iban.ts';
import { convertFloor, fraction, scaleOf, type Fraction } from '#domain/money.ts';
import { payoutRailOf } from '#domain/offRampPricing.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import type { CreateBeneficiaryBody } from '#schemas/offramps.ts';
import { fxProvider } from './fx.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { outcomeBand, settleSeconds } from './payout.ts';
import { type OutcomeBand } from './outcomeBands.ts';

/**
 * The off-ramp provider port: takes USDC sent from the home wallet, converts it and pays the
 * fiat to a registered bank account. `simulated` uses the simulator below; sandbox and production
 * need a real adapter, and until one is wired every off-ramp endpoint answers 501 (the endpoint
 * stack turns ProviderNotConfigured into not_implemented with the route's feature).
 */
export interface OffRampDepositRequest {
  /** `${organizationId}:${offRampId}`: the idempotency key at the provider. */
  reference: string;
  /** USDC minor units sent to the provider (what the off-ramp pulled, less our fee). */
  amount: bigint;
  /** USDC minor units the caller off-ramped: the simulator's outcome band is read from its cents. */
  sourceAmount: bigint;
  /** USDC minor units the provider keeps for the bank transfer, out of `amount`. */
  deliveryFee: bigint;
  /** The network the USDC is sent on (the home network). */
  network: string;
  beneficiary: CreateBeneficiaryBody;
  /** A fixed payout in the payout currency's minor units (a quoted net); absent, whatever the conversion produces. */
  payout?: bigint;
}

export type OffRampDeposit = { status: 'credited'; providerDepositId: string } | { status: 'refused'; reason: string };

export type OffRampProgress =
  /** Credited, the payout not final yet. */
  | { status: 'processing' }
  | { status: 'paid'; paid: bigint; slippage: bigint; rate: Fraction }
  /** Paid, then returned by the bank: the provider gives the USDC back. */
  | { status: 'returned'; reason: string }
  /** The provider has no record of this reference. */
  | { status: 'unknown' };

export interface OffRampProvider {
  readonly name: string;
  /**
   * Idempotent on `reference`: a repeat answers the first deposit, never a second one. Throws
   * ProviderUnavailable (nothing was sent: retry) or OffRampDepositUnanswered (the USDC may have
   * left: park IN_DOUBT, never send again).
   */
  deposit(request: OffRampDepositRequest): Promise<OffRampDeposit>;
  progress(reference: string): Promise<OffRampProgress>;
}

/** The deposit went out and no answer came back: the USDC may be at the provider. Never resent. */
export class OffRampDepositUnanswered extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OffRampDepositUnanswered';
  }
}

// ---------------------------------------------------------------------------------------------
// The simulator. Outcome bands are keyed on the cents of the USDC off-ramped: 100.91 → band 91
// (the same reading as the payout simulator's, docs/decisions/040 and 061).

export const simulatedOffRampName = 'simulated-offramp';

export const offRampBands = { refused: 91, returned: 92, unavailableTwice: 93, unanswered: 94, slippage: 96 } as const;

/** The bands as a tester reads them (GET /treasury/sandbox-prefill): cents of the USDC off-ramped, and the end. */
export const offRampOutcomeBands: readonly OutcomeBand[] = [
  { cents: offRampBands.refused, outcome: 'FAILED', description: 'The provider refuses the beneficiary before any USDC is sent; the hold is released.' },
  { cents: offRampBands.returned, outcome: 'REFUNDED', description: 'Paid, then returned by the beneficiary bank; the USDC comes back to the balance.' },
  { cents: offRampBands.unavailableTwice, outcome: 'PAID', description: 'The provider is unavailable for two deposit attempts, then takes the USDC and pays.' },
  { cents: offRampBands.unanswered, outcome: 'IN_DOUBT', description: 'The deposit to the provider is never answered; the off-ramp is parked with its USDC held and never sent again.' },
  { cents: offRampBands.slippage, outcome: 'PAID', description: 'Paid one whole unit of the payout currency short, shown in `slippage`.' },
];

/** Deposits of band 93 answered ProviderUnavailable before one is taken. */
export const offRampUnavailableAttempts = 2;

const bookItemSchema = z.object({
  entity: z.literal('simulatedOffRamp'),
  reference: z.string(),
  providerDepositId: z.string(),
  amount: z.string().regex(/^\d+$/),
  currency: z.string(),
  band: z.number().int(),
  acceptedAt: z.string(),
  rate: z.object({ numerator: z.string().regex(/^\d+$/), denominator: z.string().regex(/^\d+$/) }),
  outcome: z.discriminatedUnion('status', [
    z.object({ status: z.literal('paid'), paid: z.string().regex(/^\d+$/), slippage: z.string().regex(/^\d+$/) }),
    z.object({ status: z.literal('returned'), reason: z.string() }),
  ]),
});
type BookItem = z.infer<typeof bookItemSchema>;

/** What a bank rail refuses before taking anything; the account itself is never checked against a bank. */
function refusal(request: OffRampDepositRequest): string | undefined {
  const { beneficiary } = request;
  const rail = payoutRailOf(beneficiary.currency);
  if (!rail) return `payouts in ${beneficiary.currency} are not offered`;
  if (!/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/.test(beneficiary.bic.toUpperCase())) return 'the BIC is not well formed';
  if (rail.iban && !ibanChecksumValid(beneficiary.accountId.replace(/\s+/g, '').toUpperCase())) return `${rail.rail} needs a valid IBAN`;
  if (request.amount - request.deliveryFee <= 0n) return 'the amount does not cover the delivery fee';
  return undefined;
}

/**
 * Keeps its book in the service's table, as a real provider keeps its own: a deposit survives a
 * restart, and a progress query after one answers what was taken before it. The payout and its
 * rate are fixed when the deposit is taken, as a provider's own conversion would be.
 */
export class SimulatedOffRamps implements OffRampProvider {
  readonly name = simulatedOffRampName;
  private readonly now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.now = options.now ?? (() => new Date());
  }

  async deposit(request: OffRampDepositRequest): Promise<OffRampDeposit> {
    if (!request.reference) throw new Error('reference is required');
    const first = await this.read(request.reference);
    if (first) return { status: 'credited', providerDepositId: first.providerDepositId };

    const refused = refusal(request);
    if (refused) return { status: 'refused', reason: refused };
    const band = outcomeBand(request.sourceAmount);
    if (band === offRampBands.refused) return { status: 'refused', reason: 'the beneficiary bank account is closed' };
    if (band === offRampBands.unanswered) {
      // Nothing is recorded: the progress query then answers `unknown`, and only a person settles it.
      throw new OffRampDepositUnanswered(`the off-ramp provider did not answer the deposit ${request.reference}`);
    }
    if (band === offRampBands.unavailableTwice && (await this.countAttempt(request.reference)) <= offRampUnavailableAttempts) {
      throw new ProviderUnavailable('the off-ramp provider is momentarily unavailable');
    }

    const currency = request.beneficiary.currency;
    const scale = scaleOf(currency)!;
    const rate = currency === 'USD' ? fraction(1n, 1n) : (await fxProvider().quote('USDC', currency, this.now())).rate;
    const converted = request.payout ?? convertFloor(request.amount - request.deliveryFee, 6, rate, scale);
    // One whole unit short, as when a correspondent bank deducts a charge on the way.
    const slippage = band === offRampBands.slippage ? (converted < 10n ** BigInt(scale) ? converted : 10n ** BigInt(scale)) : 0n;
    const item: BookItem = {
      entity: 'simulatedOffRamp',
      reference: request.reference,
      providerDepositId: `sim-or-${ulid()}`,
      amount: request.amount.toString(),
      currency,
      band,
      acceptedAt: this.now().toISOString(),
      rate: { numerator: rate.numerator.toString(), denominator: rate.denominator.toString() },
      outcome:
        band === offRampBands.returned
          ? { status: 'returned', reason: 'returned by the beneficiary bank' }
          : { status: 'paid', paid: (converted - slippage).toString(), slippage: slippage.toString() },
    };
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.simulatedOffRamp(request.reference), ...item },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A concurrent deposit of the same reference won: answer it, never take a second one.
      const winner = await this.read(request.reference);
      if (!winner) throw error;
      return { status: 'credited', providerDepositId: winner.providerDepositId };
    }
    return { status: 'credited', providerDepositId: item.providerDepositId };
  }

  async progress(reference: string): Promise<OffRampProgress> {
    const item = await this.read(reference);
    if (!item) return { status: 'unknown' };
    if (this.now().getTime() < Date.parse(item.acceptedAt) + settleSeconds() * 1000) return { status: 'processing' };
    const { outcome } = item;
    if (outcome.status === 'returned') return outcome;
    return {
      status: 'paid',
      paid: BigInt(outcome.paid),
      slippage: BigInt(outcome.slippage),
      rate: fraction(BigInt(item.rate.numerator), BigInt(item.rate.denominator)),
    };
  }

  private async read(reference: string): Promise<BookItem | undefined> {
    const result = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.simulatedOffRamp(reference), ConsistentRead: true }));
    return result.Item ? bookItemSchema.parse(result.Item) : undefined;
  }

  /** Counts this deposit attempt of a reference; answers the count including it. */
  private async countAttempt(reference: string): Promise<number> {
    const result = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.simulatedOffRamp(reference, 'attempts'),
        UpdateExpression: 'ADD #attempts :one SET #entity = :entity, #reference = :reference',
        ExpressionAttributeNames: { '#attempts': 'attempts', '#entity': 'entity', '#reference': 'reference' },
        ExpressionAttributeValues: { ':one': 1, ':entity': 'simulatedOffRampAttempts', ':reference': reference },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.attempts);
  }
}

const offRampProviderPort = providerPort<OffRampProvider>('offRamp', () => new SimulatedOffRamps());

/** Wiring (or a test) installs another provider here; `undefined` goes back to the environment's default. */
export const useOffRampProvider = offRampProviderPort.use;

export const offRampProvider = offRampProviderPort.get;
