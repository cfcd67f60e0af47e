/**
 * Exact money. Amounts are bigint minor units (10^-scale of a whole unit); rates are fractions
 * of two bigints. Nothing here ever touches a float, and nothing rounds silently: a decimal
 * string with more digits than its currency allows is refused, and the only roundings (receive
 * amounts floored, fees floored) are named at the one place they happen.
 */
import type { Money, Rate } from '#schemas/common.ts';

/** Decimal places per currency: the one table (USDC 6, EURC 6, most fiat 2, VND 0, ...). */
export const currencyScales: Readonly<Record<string, number>> = {
  USDC: 6,
  EURC: 6,
  USD: 2,
  EUR: 2,
  GBP: 2,
  MXN: 2,
  BRL: 2,
  COP: 2,
  NGN: 2,
  PHP: 2,
  INR: 2,
  VND: 0,
};

export function scaleOf(currency: string): number | undefined {
  return Object.hasOwn(currencyScales, currency) ? currencyScales[currency] : undefined;
}

/**
 * The largest amount the service accepts in any request: 1,000,000,000 whole units of the amount's
 * own currency (docs/decisions/072). At USDC's scale that is 10^15 minor units: under 2^53, so even a
 * client that reads amounts as doubles keeps every accepted one exact, and 10^23 such movements
 * still fit the ledger's 38 digits.
 */
export const largestWholeUnits = 1_000_000_000n;
export const largestAmountMessage = `must be at most ${largestWholeUnits} (the largest amount accepted, in whole units of its currency)`;

/** `largestWholeUnits` in minor units of a currency of this scale. */
export function largestAmountAt(scale: number): bigint {
  return largestWholeUnits * 10n ** BigInt(scale);
}

/**
 * Whether a decimal string is within `largestWholeUnits`, whatever its currency's scale: the bound is
 * in whole units, so a schema can check it before knowing the currency. Text that is not a decimal
 * string passes here: its pattern refuses it.
 */
export function isWithinLargestAmount(text: string): boolean {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return true;
  // Digits counted before any BigInt: a megabyte of digits is refused without converting it.
  const digits = match[1]!.replace(/^0+(?=\d)/, '');
  if (digits.length > String(largestWholeUnits).length) return false;
  const whole = BigInt(digits);
  return whole < largestWholeUnits || (whole === largestWholeUnits && /^0*$/.test(match[2] ?? ''));
}

/** Why a decimal string was refused; the handler turns it into a 400 `validation` issue. */
export class AmountError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AmountError';
  }
}

/**
 * "12.5" at scale 2 → 1250n. More decimals than `scale` is refused, never rounded; so is more than
 * `largestWholeUnits`: every amount a request carries is parsed here.
 */
export function parseDecimal(text: string, scale: number): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new AmountError('must be a decimal string such as "12.50"');
  const [, whole, fraction = ''] = match;
  if (fraction.length > scale) {
    throw new AmountError(scale === 0 ? 'must be a whole number: this currency has no decimals' : `must have at most ${scale} decimals`);
  }
  if (!isWithinLargestAmount(text)) throw new AmountError(largestAmountMessage);
  return BigInt(whole + fraction.padEnd(scale, '0'));
}

/** 1250n at scale 2 → "12.50": for people (messages, e-mails), never parsed back by us. */
export function formatDecimal(minor: bigint, scale: number): string {
  const negative = minor < 0n;
  const digits = (negative ? -minor : minor).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return negative ? `-${text}` : text;
}

/**
 * A money object as people read it in an e-mail: `4,579.00 MXN`, digits grouped by three, every
 * decimal of its scale kept (exact: formatDecimal's string, never a float). The scale is the object's,
 * or the currency's where a nested object omits it; an amount that is not an integer string is shown
 * as given rather than guessed at.
 */
export function formatMoney(value: { amount: string; currency: string; scale?: number }): string {
  const scale = value.scale ?? scaleOf(value.currency);
  if (scale === undefined || !/^-?\d+$/.test(value.amount)) return `${value.amount} ${value.currency}`;
  const text = formatDecimal(BigInt(value.amount), scale);
  const [whole, fractionDigits] = text.split('.');
  const sign = whole!.startsWith('-') ? '-' : '';
  const grouped = whole!.replace('-', '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}${fractionDigits === undefined ? '' : `.${fractionDigits}`} ${value.currency}`;
}

/** The contract's money object. */
export function money(minor: bigint, currency: string): Money {
  const scale = scaleOf(currency);
  if (scale === undefined) throw new AmountError(`unknown currency ${currency}`);
  return { amount: minor.toString(), currency, scale };
}

/** An exact rate: one whole unit of `from` buys numerator/denominator whole units of `to`. */
export interface Fraction {
  numerator: bigint;
  denominator: bigint;
}

export function fraction(numerator: bigint, denominator: bigint): Fraction {
  if (denominator <= 0n) throw new AmountError('a rate needs a positive denominator');
  if (numerator < 0n) throw new AmountError('a rate cannot be negative');
  const divisor = gcd(numerator, denominator);
  return { numerator: numerator / divisor, denominator: denominator / divisor };
}

function gcd(a: bigint, b: bigint): bigint {
  let [x, y] = [a < 0n ? -a : a, b];
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

/** "17.0512" → 170512/10000, reduced. For rate tables written by people. */
export function fractionOf(decimal: string): Fraction {
  // A typo in a rate table must fail loudly, never be truncated into another rate.
  if (!/^\d+(\.\d+)?$/.test(decimal)) throw new AmountError(`not a decimal rate: ${decimal}`);
  const [whole, frac = ''] = decimal.split('.');
  return fraction(BigInt(whole + frac), 10n ** BigInt(frac.length));
}

export function multiply(a: Fraction, b: Fraction): Fraction {
  return fraction(a.numerator * b.numerator, a.denominator * b.denominator);
}

export function rateJson(from: string, to: string, rate: Fraction): Rate {
  return { from, to, numerator: rate.numerator.toString(), denominator: rate.denominator.toString() };
}

/**
 * What `minor` units of a `fromScale` currency buy at `rate`, in minor units of a `toScale`
 * currency, floored to the minor unit (10^-toScale): never a fraction of one. A payment's receive
 * amount is floored further, to whole units (`floorToWholeUnits`).
 */
export function convertFloor(minor: bigint, fromScale: number, rate: Fraction, toScale: number): bigint {
  if (minor < 0n) throw new AmountError('cannot convert a negative amount');
  const numerator = minor * rate.numerator * 10n ** BigInt(toScale);
  const denominator = rate.denominator * 10n ** BigInt(fromScale);
  return numerator / denominator;
}

/**
 * `minor` (at `scale`) floored to whole units, still written at `scale`: 459986n at scale 2 →
 * 459900n. The contract's receive amount is "floored to whole destination units", the units its
 * rate is quoted in (one whole unit of `from` buys n/d whole units of `to`), not minor units.
 */
export function floorToWholeUnits(minor: bigint, scale: number): bigint {
  if (minor < 0n) throw new AmountError('cannot floor a negative amount');
  const unit = 10n ** BigInt(scale);
  return (minor / unit) * unit;
}

/** `bps` basis points of `minor`, floored (a fee or margin never exceeds its stated rate). */
export function basisPoints(minor: bigint, bps: number): bigint {
  if (!Number.isInteger(bps) || bps < 0) throw new AmountError('basis points must be a non-negative integer');
  return (minor * BigInt(bps)) / 10_000n;
}
