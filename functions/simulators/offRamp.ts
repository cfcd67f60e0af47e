import { ulid } from 'ulid';
import * as z from 'zod/mini';
import { ibanChecksumValid } from '#domain/iban.ts';
import { convertFloor, fraction, scaleOf } from '#domain/money.ts';
import { payoutRailOf } from '#domain/offRampPricing.ts';
import { offRampBands } from '#contract/outcomeBands.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { keys } from '#store/keys.ts';
import { fxProvider } from '#providers/fx.ts';
import { OffRampDepositUnanswered, type OffRampDeposit, type OffRampDepositRequest, type OffRampProgress, type OffRampProvider } from '#providers/offRamp.ts';
import { countAttempt, firstEntry, readEntry, Simulator } from './book.ts';
import { outcomeBand, settleSeconds } from './payout.ts';

/**
 * The off-ramp simulator: an off-ramp provider that pretends. Outcome bands
 * (functions/contract/outcomeBands.ts) are keyed on the cents of the USDC off-ramped: 100.91 →
 * band 91 (the same reading as the payout simulator's, docs/decisions/040 and 061).
 */
export const simulatedOffRampName = 'simulated-offramp';

/** Deposits of band 93 answered ProviderUnavailable before one is taken. */
export const offRampUnavailableAttempts = 2;

const bookItemSchema = z.object({
  entity: z.literal('simulatedOffRamp'),
  reference: z.string(),
  providerDepositId: z.string(),
  amount: z.string().check(z.regex(/^\d+$/)),
  currency: z.string(),
  band: z.number().check(z.int()),
  acceptedAt: z.string(),
  rate: z.object({ numerator: z.string().check(z.regex(/^\d+$/)), denominator: z.string().check(z.regex(/^\d+$/)) }),
  outcome: z.discriminatedUnion('status', [
    z.object({ status: z.literal('paid'), paid: z.string().check(z.regex(/^\d+$/)), slippage: z.string().check(z.regex(/^\d+$/)) }),
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
 * Keeps its book in the service's table (./book.ts), as a real provider keeps its own: a deposit survives a
 * restart, and a progress query after one answers what was taken before it. The payout and its
 * rate are fixed when the deposit is taken, as a provider's own conversion would be.
 */
export class SimulatedOffRamps extends Simulator implements OffRampProvider {
  readonly name = simulatedOffRampName;
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
    if (band === offRampBands.unavailableTwice && (await countAttempt(keys.simulatedOffRamp(request.reference, 'attempts'), 'simulatedOffRampAttempts', request.reference)) <= offRampUnavailableAttempts) {
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
    // A concurrent deposit of the same reference won: answer it, never take a second one.
    const taken = await firstEntry(keys.simulatedOffRamp(request.reference), item, bookItemSchema);
    return { status: 'credited', providerDepositId: taken.providerDepositId };
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

  private read(reference: string): Promise<BookItem | undefined> {
    return readEntry(keys.simulatedOffRamp(reference), bookItemSchema);
  }
}
