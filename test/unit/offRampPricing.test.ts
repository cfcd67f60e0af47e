import { describe, expect, it } from 'vitest';
import { convertFloor, fraction, fractionOf, multiply } from '#domain/money.ts';
import { offRampCurrencies, offRampFeeBps, offRampFxBufferBps, offRampMinimum, offRampPayoutRails, payoutRailOf, priceOffRamp } from '#domain/offRampPricing.ts';
import { offRampBands, offRampOutcomeBands } from '#contract/outcomeBands.ts';

describe('priceOffRamp', () => {
  it('USD is at par: fee floored at 50 bps, net = (pulled − fee − delivery fee) floored to cents', () => {
    const price = priceOffRamp({ pulled: 123_456_789n, currency: 'USD' });
    expect(price.atPar).toBe(true);
    expect(price.fee).toBe(617_283n); // 123.456789 × 0.005 = 0.617283945, floored
    expect(price.deliveryFee).toBe(offRampPayoutRails.USD!.deliveryFee);
    expect(price.net).toBe((123_456_789n - 617_283n - 5_000_000n) / 10_000n);
    expect(price.fxBufferBps).toBeUndefined();
  });

  it('another currency: the mid less the buffer, floored; no rate, no net', () => {
    const mid = fractionOf('0.9213');
    const price = priceOffRamp({ pulled: 100_000_000n, currency: 'EUR', mid });
    const usable = 100_000_000n - 500_000n - 500_000n;
    expect(price.net).toBe(convertFloor(usable, 6, multiply(mid, fraction(BigInt(10_000 - offRampFxBufferBps), 10_000n)), 2));
    expect(price.fxBufferBps).toBe(offRampFxBufferBps);
    expect(priceOffRamp({ pulled: 100_000_000n, currency: 'EUR' }).net).toBeUndefined();
  });

  it('below the minimum there is a fee but no net', () => {
    const price = priceOffRamp({ pulled: offRampMinimum - 1n, currency: 'USD' });
    expect(price.net).toBeUndefined();
    expect(price.fee).toBeGreaterThan(0n);
    expect(priceOffRamp({ pulled: offRampMinimum, currency: 'USD' }).net).toBeGreaterThan(0n);
  });

  it('refuses a currency it does not serve', () => {
    expect(() => priceOffRamp({ pulled: 100_000_000n, currency: 'JPY' })).toThrow(/not served/);
  });
});

describe('the off-ramp\'s figures (decision 061)', () => {
  it('are a fee of 50 bps, a minimum of 10 USDC and a buffer of 100 bps', () => {
    expect([offRampFeeBps, offRampMinimum, offRampFxBufferBps]).toEqual([50, 10_000_000n, 100]);
  });

  it('pay out EUR and GBP by IBAN, USD by account number, each with its delivery fee, and nothing else', () => {
    expect(offRampCurrencies).toEqual(['EUR', 'GBP', 'USD']);
    expect(payoutRailOf('EUR')).toEqual({ rail: 'SEPA credit transfer', iban: true, deliveryFee: 500_000n });
    expect(payoutRailOf('GBP')).toEqual({ rail: 'Faster Payments', iban: true, deliveryFee: 500_000n });
    expect(payoutRailOf('USD')).toEqual({ rail: 'Fedwire', iban: false, deliveryFee: 5_000_000n });
    for (const currency of ['JPY', 'toString', 'usd']) expect(payoutRailOf(currency), currency).toBeUndefined();
  });

  it('price 100 USDC to EUR at 0.9213: 0.50 fee, 0.50 delivery, 99 × 0.9213 × 0.99 = 90.29 EUR', () => {
    expect(priceOffRamp({ pulled: 100_000_000n, currency: 'EUR', mid: fractionOf('0.9213') })).toEqual({
      pulled: 100_000_000n, currency: 'EUR', atPar: false, fee: 500_000n, deliveryFee: 500_000n, net: 9_029n, fxBufferBps: 100,
    });
    expect(priceOffRamp({ pulled: 100_000_000n, currency: 'GBP' })).toEqual({ pulled: 100_000_000n, currency: 'GBP', atPar: false, fee: 500_000n, deliveryFee: 500_000n });
    expect(priceOffRamp({ pulled: 10_000_000n, currency: 'USD' })).toEqual({ pulled: 10_000_000n, currency: 'USD', atPar: true, fee: 50_000n, deliveryFee: 5_000_000n, net: 495n });
    expect(priceOffRamp({ pulled: 9_999_999n, currency: 'EUR', mid: fractionOf('1') })).not.toHaveProperty('net');
  });
});

describe('offRampOutcomeBands', () => {
  it('lists each band once, with the end it reaches', () => {
    const cents = offRampOutcomeBands.map((band) => band.cents);
    expect(new Set(cents).size).toBe(cents.length);
    expect(Object.values(offRampBands).sort()).toEqual([...cents].sort());
    expect(offRampOutcomeBands.find((band) => band.cents === 91)!.outcome).toBe('FAILED');
    expect(offRampOutcomeBands.find((band) => band.cents === 92)!.outcome).toBe('REFUNDED');
    expect(offRampOutcomeBands.find((band) => band.cents === 94)!.outcome).toBe('IN_DOUBT');
    expect(offRampOutcomeBands.find((band) => band.cents === 96)!.outcome).toBe('PAID');
  });
});
