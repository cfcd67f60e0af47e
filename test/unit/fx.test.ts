import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { multiply, fraction, type Fraction } from '#domain/money.ts';
import { corridorCatalogue } from '#domain/corridors.ts';
import { reloadConfig } from '#platform/config.ts';
import {
  FxPairUnsupported,
  fxProvider,
  useFxProvider,
} from '#providers/fx.ts';
import { SimulatedFx, simulatedBaseRates, simulatedMaxDriftBps, simulatedQuoteSeconds } from '#simulators/fx.ts';

const fx = new SimulatedFx();
const pairs = Object.keys(simulatedBaseRates);
// 2026-01-01 to 2027-12-31, in milliseconds.
const moments = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 11, 31) }).map((ms) => new Date(ms));

function base(pair: string): Fraction {
  const rate = simulatedBaseRates[pair];
  if (!rate) throw new Error(pair);
  return rate;
}

/** a ≤ b, exactly: cross-multiplied bigints. */
function atMost(a: Fraction, b: Fraction): boolean {
  return a.numerator * b.denominator <= b.numerator * a.denominator;
}

describe('simulated FX rates', () => {
  afterEach(() => {
    useFxProvider(undefined);
    delete process.env.SERVICE_ENVIRONMENT;
    reloadConfig();
  });

  it('price every corridor of the catalogue', async () => {
    for (const corridor of corridorCatalogue) {
      const quote = await fx.quote(corridor.from, corridor.to);
      expect(quote.rate.numerator).toBeGreaterThan(0n);
    }
  });

  it('stay within ±50 bps of the base rate, as reduced exact fractions', () => {
    fc.assert(
      fc.property(fc.constantFrom(...pairs), moments, (pair, now) => {
        const [from = '', to = ''] = pair.split('/');
        const rate = fx.rateAt(from, to, now);
        expect(typeof rate.numerator).toBe('bigint');
        expect(typeof rate.denominator).toBe('bigint');
        expect(rate).toEqual(fraction(rate.numerator, rate.denominator)); // already in lowest terms
        const low = multiply(base(pair), fraction(BigInt(10_000 - simulatedMaxDriftBps), 10_000n));
        const high = multiply(base(pair), fraction(BigInt(10_000 + simulatedMaxDriftBps), 10_000n));
        expect(atMost(low, rate) && atMost(rate, high)).toBe(true);
      }),
    );
  });

  it('are the same throughout one minute window', () => {
    fc.assert(
      fc.property(fc.constantFrom(...pairs), moments, fc.integer({ min: 0, max: 59_999 }), (pair, now, offset) => {
        const [from = '', to = ''] = pair.split('/');
        const windowStart = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
        expect(fx.rateAt(from, to, new Date(windowStart.getTime() + offset))).toEqual(fx.rateAt(from, to, windowStart));
        expect(new SimulatedFx().rateAt(from, to, windowStart)).toEqual(fx.rateAt(from, to, windowStart));
      }),
    );
  });

  it('move between minute windows', () => {
    for (const pair of pairs) {
      const [from = '', to = ''] = pair.split('/');
      const start = Date.UTC(2026, 10, 23, 12, 0);
      const rates = new Set(Array.from({ length: 30 }, (_, minute) => {
        const rate = fx.rateAt(from, to, new Date(start + minute * 60_000));
        return `${rate.numerator}/${rate.denominator}`;
      }));
      // 101 possible drifts: 30 windows landing on one or two values would be no movement at all.
      expect(rates.size).toBeGreaterThan(10);
    }
  });

  it('quote for 90 seconds from the moment asked', async () => {
    const now = new Date('2026-11-23T12:00:30.000Z');
    const quote = await fx.quote('USDC', 'MXN', now);
    expect(quote).toMatchObject({ from: 'USDC', to: 'MXN', quotedAt: now });
    expect(quote.expiresAt.getTime() - now.getTime()).toBe(simulatedQuoteSeconds * 1000);
    expect(simulatedQuoteSeconds).toBeGreaterThan(60);
  });

  it('refuse a pair they do not price', async () => {
    await expect(fx.quote('USDC', 'JPY')).rejects.toBeInstanceOf(FxPairUnsupported);
    expect(fx.rateAt('USDC', 'USDC', new Date())).toEqual({ numerator: 1n, denominator: 1n });
  });

  it('are the provider in `simulated` only', () => {
    expect(fxProvider().name).toBe('simulated-fx');
    useFxProvider(undefined);
    process.env.SERVICE_ENVIRONMENT = 'production';
    reloadConfig();
    expect(() => fxProvider()).toThrow(expect.objectContaining({ name: 'ProviderNotConfigured' }));
    const stub = { name: 'stub', quote: fx.quote.bind(fx) };
    useFxProvider(stub);
    expect(fxProvider()).toBe(stub);
  });
});
