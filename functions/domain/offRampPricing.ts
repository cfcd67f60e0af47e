/**
 * Pricing an off-ramp: what we keep, what the bank transfer costs, what the beneficiary receives.
 * Pure: the caller brings the mid rate (from the FX port) when the payout is not USD.
 *
 *   fee      = floor(pulled × feeBps / 10000)                       (USDC minor units, ours)
 *   usable   = pulled − fee − deliveryFee                           (USDC the provider converts)
 *   net      = usable / 10^4, floored to cents                      (USD: at par, one for one)
 *            = floor(usable × mid × (10000 − fxBufferBps) / 10000)  (other currencies)
 *
 * The FX buffer is held back because the provider converts later, at its own rate: a quoted net
 * must still be payable when the rate has moved against us meanwhile (docs/decisions/061).
 */
import { basisPoints, convertFloor, fraction, multiply, scaleOf, type Fraction } from '#domain/money.ts';

export const offRampFeeBps = 50;
/** USDC minor units: the smallest off-ramp priced with a net and accepted by POST. */
export const offRampMinimum = 10_000_000n;
/** Twice the most the simulated rate can move in a minute (±50 bps): a quoted net always stays payable. */
export const offRampFxBufferBps = 100;

export interface PayoutRail {
  rail: string;
  /** The rail wants an IBAN as the account (SEPA, UK); otherwise an account number. */
  iban: boolean;
  /** USDC minor units the provider keeps for the bank transfer. */
  deliveryFee: bigint;
}

/**
 * The payout currencies off-ramps serve. A beneficiary in another currency can be registered
 * (nothing verifies it) but is refused at quote and at POST with 400 validation (decision 061).
 */
export const offRampPayoutRails: Readonly<Record<string, PayoutRail>> = {
  EUR: { rail: 'SEPA credit transfer', iban: true, deliveryFee: 500_000n },
  GBP: { rail: 'Faster Payments', iban: true, deliveryFee: 500_000n },
  USD: { rail: 'Fedwire', iban: false, deliveryFee: 5_000_000n },
};

export function payoutRailOf(currency: string): PayoutRail | undefined {
  return Object.hasOwn(offRampPayoutRails, currency) ? offRampPayoutRails[currency] : undefined;
}

export const offRampCurrencies = Object.keys(offRampPayoutRails);

export interface OffRampPrice {
  pulled: bigint;
  currency: string;
  atPar: boolean;
  fee: bigint;
  deliveryFee: bigint;
  /** Payout-currency minor units; undefined below the minimum, when the fees eat the amount, or without a rate. */
  net?: bigint;
  /** Set when a net was priced through a rate that is not yet the provider's. */
  fxBufferBps?: number;
}

/** `mid` is required unless the payout is USD; without it (source unavailable) the price has no net. */
export function priceOffRamp(input: { pulled: bigint; currency: string; mid?: Fraction }): OffRampPrice {
  const rail = payoutRailOf(input.currency);
  const scale = scaleOf(input.currency);
  if (!rail || scale === undefined) throw new Error(`payouts in ${input.currency} are not served`);
  const atPar = input.currency === 'USD';
  const fee = basisPoints(input.pulled, offRampFeeBps);
  const price: OffRampPrice = { pulled: input.pulled, currency: input.currency, atPar, fee, deliveryFee: rail.deliveryFee };
  const usable = input.pulled - fee - rail.deliveryFee;
  if (input.pulled < offRampMinimum) return price;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent today, the minimum covers the largest fees; kept for a fee raised above it
  if (usable <= 0n) return price;
  if (atPar) return { ...price, net: convertFloor(usable, 6, fraction(1n, 1n), scale) };
  if (!input.mid) return price;
  const buffered = multiply(input.mid, fraction(BigInt(10_000 - offRampFxBufferBps), 10_000n));
  return { ...price, net: convertFloor(usable, 6, buffered, scale), fxBufferBps: offRampFxBufferBps };
}
