import { describe, expect, it } from 'vitest';
import { fraction } from '#domain/money.ts';
import { basePriceOf, figuresOf, pixQuote, wireFeeBps, wireQuote } from '#operations/onRamp/pricing.ts';
import { onRampOutcomeBands } from '#contract/outcomeBands.ts';
import { onRampBand } from '#simulators/onRamp.ts';

describe('on-ramp figures', () => {
  it('converts USD at par, exactly: 100.00 USD is 100 USDC, the fee floored', () => {
    expect(figuresOf(100_00n, 'USD', fraction(1n, 1n), wireFeeBps)).toEqual({ gross: 100_000_000n, fee: 250_000n, net: 99_750_000n });
    // 0.01 USD: 10000 minor USDC, 25 bps of it is 25, floored from 25.0
    expect(figuresOf(1n, 'USD', fraction(1n, 1n), 25)).toEqual({ gross: 10_000n, fee: 25n, net: 9_975n });
    // a fee that is not whole is floored, never rounded up
    expect(figuresOf(1n, 'USD', fraction(1n, 1n), 33).fee).toBe(33n);
    expect(figuresOf(3n, 'USD', fraction(1n, 1n), 33).fee).toBe(99n);
  });

  it('converts at a rate floored to whole USDC minor units', () => {
    // 1 BRL buys 10000/54183 USDC: 100.00 BRL → 18.4559733... USDC → 18455973 minor units
    const rate = fraction(10_000n, 54_183n);
    expect(figuresOf(100_00n, 'BRL', rate, 0).gross).toBe(18_455_973n);
    expect(basePriceOf(rate)).toBe('5.4183');
  });

  it('quotes USD with gross, fee and net and EUR without', () => {
    expect(wireQuote('USD', '10')).toMatchObject({ atPar: true, gross: { amount: '10000000' }, net: { amount: '9975000' } });
    const euro = wireQuote('EUR', '10');
    expect(euro.atPar).toBe(false);
    expect(euro.gross).toBeUndefined();
  });

  it('says why a PIX code is not available', () => {
    const quote = pixQuote({ amount: 5_00n, provider: 'p', home: { unavailable: 'no wallet' }, priced: { unavailable: 'no price' } });
    expect(quote.available).toBe(false);
    expect(quote.reason).toBe('no wallet; no price; below the minimum of 10.00 BRL');
    expect(quote.net).toBeUndefined();
  });
});

describe('on-ramp outcome bands', () => {
  it('are keyed on the cents of the fiat amount and listed once each', () => {
    expect(onRampBand(100_92n)).toBe(92);
    expect(onRampBand(7n)).toBe(7);
    expect(onRampOutcomeBands.map((band) => [band.cents, band.outcome])).toEqual([[92, 'REFUNDED'], [94, 'IN_DOUBT'], [97, 'FAILED']]);
  });
});
