/**
 * What an on-ramp costs and what it delivers (docs/decisions/054 wire, 055 PIX). Pure except for
 * the FX read, which the caller passes in or gets from `fiatToUsdcRate`.
 *
 *   gross = fiat converted to USDC        USD at par (1 USD = 1 USDC); EUR and BRL at the FX
 *                                          provider's mid rate, floored to whole USDC minor units
 *   fee   = floor(gross × feeBps / 10000)  never more than the stated rate
 *   net   = gross − fee − deliveryFee      what the home wallet receives
 *
 * The delivery fee is 0: the simulated issuer mints on the home network itself, so nothing
 * crosses networks (`mint+transfer`: minted to the service's treasury, transferred to the home
 * wallet). A real issuer minting elsewhere would charge the crossing fee here.
 */
import { validationError } from '#platform/errors.ts';
import { config } from '#platform/config.ts';
import { fxProvider } from '#providers/fx.ts';
import { houseAccountsFor, type HouseAccount } from '#domain/houseAccounts.ts';
import { pixMaximum, pixMinimum } from '#domain/pixLimits.ts';
import { AmountError, basisPoints, convertFloor, formatDecimal, fraction, largestAmountAt, money, parseDecimal, scaleOf, type Fraction } from '#domain/money.ts';
import type { Money } from '#schemas/common.ts';
import type { OnRampQuote, PixOnRampQuote } from '#schemas/deposits.ts';

export const onRampStablecoin = 'USDC';
const usdcScale = 6;

/** Our fee on a wire deposit, in basis points of the USDC it converts to. */
export const wireFeeBps = 25;
/** Our fee on a PIX deposit: PIX carries a conversion from BRL on every deposit. */
export const pixFeeBps = 75;
export const deliveryMethod = 'mint+transfer' as const;
export const deliveryFee = 0n;

/** The smallest wire a deposit is started for, per currency (minor units): 10.00. Below it a wire parks. */
export const wireMinimums: Readonly<Record<string, bigint>> = { USD: 10_00n, EUR: 10_00n };
/**
 * The largest wire one deposit takes (minor units of USD and EUR, both scale 2): the largest amount
 * the service accepts (docs/decisions/072), 1,000,000,000.00. A bank-fed wire above it parks.
 */
export const wireMaximum = largestAmountAt(2);
// PIX limits: domain data the simulated PSP reads too.
export { pixMaximum, pixMinimum };
export const pixCurrency = 'BRL';

export interface OnRampFigures {
  gross: bigint;
  fee: bigint;
  net: bigint;
}

/** The house account wires of this currency are paid to, if there is one. */
export function houseAccountOf(currency: string): HouseAccount | undefined {
  return houseAccountsFor(config().SERVICE_ENVIRONMENT, config().HOUSE_ACCOUNTS).find((candidate) => candidate.currency === currency);
}

/** The house account wires of this currency are paid to; a currency without one is refused (400 validation). */
export function wireAccountOf(currency: string, path: (string | number)[]): HouseAccount {
  const account = houseAccountOf(currency);
  if (!account) {
    const accounts = houseAccountsFor(config().SERVICE_ENVIRONMENT, config().HOUSE_ACCOUNTS);
    const held = accounts.map((candidate) => candidate.currency).join(' or ') || 'no currency';
    throw validationError(
      [{ path, message: `no house account takes ${currency} wires here; wire ${held}` }],
      `There is no house bank account for ${currency}: a wire deposit can be opened for ${held} only.`,
    );
  }
  return account;
}

/** A decimal string in the currency's own scale; extra decimals are refused (400 validation), never rounded. */
export function parseFiat(text: string, currency: string, path: (string | number)[]): bigint {
  const scale = scaleOf(currency);
  if (scale === undefined) throw validationError([{ path, message: `unknown currency ${currency}` }]);
  try {
    return parseDecimal(text, scale);
  } catch (error) {
    if (error instanceof AmountError) throw validationError([{ path, message: error.message }]);
    throw error;
  }
}

export function wireMinimumOf(currency: string): bigint {
  const minimum = wireMinimums[currency];
  if (minimum === undefined) throw new Error(`no wire minimum for ${currency}`);
  return minimum;
}

/** USD converts at par; everything else through the FX rate. */
export function isAtPar(currency: string): boolean {
  return currency === 'USD';
}

/** One whole unit of `currency` buys this many whole USDC: the inverse of the provider's USDC/<currency> mid rate. */
export async function fiatToUsdcRate(currency: string, now = new Date()): Promise<{ rate: Fraction; provider: string }> {
  if (isAtPar(currency)) return { rate: fraction(1n, 1n), provider: 'par' };
  const fx = fxProvider();
  const quote = await fx.quote(onRampStablecoin, currency, now);
  return { rate: fraction(quote.rate.denominator, quote.rate.numerator), provider: fx.name };
}

export function figuresOf(fiat: bigint, currency: string, rate: Fraction, feeBps: number): OnRampFigures {
  const scale = scaleOf(currency);
  if (scale === undefined) throw new Error(`unknown currency ${currency}`);
  const gross = convertFloor(fiat, scale, rate, usdcScale);
  const fee = basisPoints(gross, feeBps);
  const net = gross - fee - deliveryFee;
  return { gross, fee, net: net > 0n ? net : 0n };
}

/** A price for people: BRL per USDC, floored to four decimals (the exact rate is the fraction). */
export function basePriceOf(usdcPerUnit: Fraction): string {
  // The inverse (units per USDC) is what a BRL payer reads as "the price of a dollar".
  return formatDecimal((usdcPerUnit.denominator * 10_000n) / usdcPerUnit.numerator, 4);
}

export function usdc(minor: bigint): Money {
  return money(minor, onRampStablecoin);
}

// ---- Quotes -----------------------------------------------------------------------------------

/**
 * GET /treasury/onramp/quote. USD is at par, so its gross, fee and net are known now; for EUR
 * they are omitted: the rate is the one in force at conversion, not today's. A quote below the
 * minimum is still a quote (POST refuses it).
 */
export function wireQuote(currency: string, amountText: string): OnRampQuote {
  wireAccountOf(currency, ['currency']);
  const amount = parseFiat(amountText, currency, ['amount']);
  const quote: OnRampQuote = {
    atPar: isAtPar(currency),
    sent: money(amount, currency),
    targetStablecoin: onRampStablecoin,
    feeBps: wireFeeBps,
    deliveryFee: usdc(deliveryFee),
    deliveryMethod,
    minimum: money(wireMinimumOf(currency), currency),
  };
  if (isAtPar(currency)) {
    const figures = figuresOf(amount, currency, fraction(1n, 1n), wireFeeBps);
    Object.assign(quote, { gross: usdc(figures.gross), fee: usdc(figures.fee), net: usdc(figures.net) });
  }
  return quote;
}

/**
 * GET /treasury/onramp/pix/quote: indicative (the live BRL price; fixed only when a code is
 * opened). `available` false, with its reason, when a code could not be opened for this amount now.
 */
export function pixQuote(input: {
  amount: bigint;
  provider: string;
  /** The home wallet's network, or why there is none. */
  home: { chain: string } | { unavailable: string };
  priced: { rate: Fraction; provider: string } | { unavailable: string };
}): PixOnRampQuote {
  const quote: PixOnRampQuote = {
    sent: money(input.amount, pixCurrency),
    targetStablecoin: onRampStablecoin,
    feeBps: pixFeeBps,
    chain: 'chain' in input.home ? input.home.chain : 'unknown',
    available: true,
    minimum: money(pixMinimum, pixCurrency),
    maximum: money(pixMaximum, pixCurrency),
    provider: input.provider,
  };
  if ('rate' in input.priced) {
    const figures = figuresOf(input.amount, pixCurrency, input.priced.rate, pixFeeBps);
    Object.assign(quote, { indicative: true, basePrice: basePriceOf(input.priced.rate), fee: usdc(figures.fee), net: usdc(figures.net) });
  }
  const reasons = [
    ...('unavailable' in input.home ? [input.home.unavailable] : []),
    ...('unavailable' in input.priced ? [input.priced.unavailable] : []),
    ...(input.amount < pixMinimum ? [`below the minimum of ${formatDecimal(pixMinimum, 2)} BRL`] : []),
    ...(input.amount > pixMaximum ? [`above the maximum of ${formatDecimal(pixMaximum, 2)} BRL`] : []),
  ];
  if (reasons.length > 0) Object.assign(quote, { available: false, reason: reasons.join('; ') });
  return quote;
}
