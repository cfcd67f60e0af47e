import { createHmac } from 'node:crypto';
import { fraction, fractionOf, multiply, type Fraction } from '#domain/money.ts';
import { FxPairUnsupported, type FxProvider, type FxQuote } from '#providers/fx.ts';

/** The FX simulator: a pricing source that pretends, with rates that drift minute by minute. */
export const simulatedFxName = 'simulated-fx';

/** Simulated mid rates per USDC (late 2026 levels), written as decimals and kept as exact fractions. */
export const simulatedBaseRates: Readonly<Record<string, Fraction>> = {
  'USDC/MXN': fractionOf('18.4127'),
  'USDC/BRL': fractionOf('5.4183'),
  'USDC/COP': fractionOf('4102.35'),
  'USDC/NGN': fractionOf('1551.20'),
  'USDC/PHP': fractionOf('58.0415'),
  'USDC/INR': fractionOf('85.1230'),
  'USDC/EUR': fractionOf('0.9213'),
  'USDC/GBP': fractionOf('0.7904'),
  'USDC/VND': fractionOf('25412'),
};

/** The simulator's quote life; longer than QUOTE_TTL_SECONDS (60) so the service's own TTL is the binding one. */
export const simulatedQuoteSeconds = 90;
/** The simulated rate drifts at most this many basis points either side of its base. */
export const simulatedMaxDriftBps = 50;

/**
 * The drift of a pair in one minute window, −50..+50 bps: taken from an HMAC of (pair, window),
 * so the same minute always answers the same rate (a re-priced quote in that minute agrees)
 * and the next minute moves it. The key is not a secret.
 */
export function simulatedDriftBps(pair: string, window: bigint): number {
  const digest = createHmac('sha256', 'simulated-fx/v1').update(`${pair}:${window}`).digest();
  return (digest.readUInt32BE(0) % (2 * simulatedMaxDriftBps + 1)) - simulatedMaxDriftBps;
}

export class SimulatedFx implements FxProvider {
  readonly name = simulatedFxName;

  async quote(from: string, to: string, now: Date = new Date()): Promise<FxQuote> {
    return { from, to, rate: this.rateAt(from, to, now), quotedAt: now, expiresAt: new Date(now.getTime() + simulatedQuoteSeconds * 1000) };
  }

  /** The mid rate in force at `now`: base × (10000 + drift) / 10000, exact. */
  rateAt(from: string, to: string, now: Date): Fraction {
    if (from === to) return fraction(1n, 1n);
    const pair = `${from}/${to}`;
    const base = Object.hasOwn(simulatedBaseRates, pair) ? simulatedBaseRates[pair] : undefined;
    if (!base) throw new FxPairUnsupported(from, to);
    const window = BigInt(Math.floor(now.getTime() / 60_000));
    return multiply(base, fraction(BigInt(10_000 + simulatedDriftBps(pair, window)), 10_000n));
  }
}

