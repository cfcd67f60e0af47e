import { providerPort } from '#platform/providerPorts.ts';
import type { Fraction } from '#domain/money.ts';

/**
 * The FX rate port: the mid-market rate a route is priced from (functions/domain/pricing.ts).
 * `simulated` uses its simulator (functions/simulators/fx.ts); sandbox and production need a real pricing source,
 * and until one is wired quoting fails loudly instead of inventing a rate.
 */
export interface FxQuote {
  from: string;
  to: string;
  /** Mid market: one whole `from` buys `rate` whole `to`. Exact. */
  rate: Fraction;
  quotedAt: Date;
  /** The provider's own quote life: a quote built on this rate never outlives it. */
  expiresAt: Date;
}

export interface FxProvider {
  readonly name: string;
  /** Throws ProviderUnavailable when the pricing source is momentarily missing (nothing to retry but the call). */
  quote(from: string, to: string, now?: Date): Promise<FxQuote>;
}

/** Permanent: the source does not price this pair. A caller asked for a corridor we do not serve. */
export class FxPairUnsupported extends Error {
  constructor(from: string, to: string) {
    super(`No rate is published for ${from}→${to}.`);
    this.name = 'FxPairUnsupported';
  }
}

const fxProviderPort = providerPort<FxProvider>('fx');

/** The simulated stage's wiring registers the simulator here (functions/simulators/install.ts). */
export const simulateFxProvider = fxProviderPort.simulateWith;

/** Wiring (or a test) installs another source here; `undefined` goes back to the environment's default. */
export const useFxProvider = fxProviderPort.use;

export const fxProvider = fxProviderPort.get;
