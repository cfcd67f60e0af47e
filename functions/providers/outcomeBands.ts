/**
 * The simulators' outcome bands (docs/decisions/040): the cents of an amount choose how an
 * operation ends, so every failure path can be forced on purpose. Each simulator lists its bands
 * in this shape, which GET /treasury/sandbox-prefill publishes.
 */
export interface OutcomeBand {
  /** The two decimal digits after the point: 100.91 is band 91. */
  cents: number;
  /** The end the operation reaches. */
  outcome: string;
  description: string;
}

/** The band of an amount in minor units of a currency with `scale` decimals (at least 2): its cents. */
export function centsOf(minor: bigint, scale: number): number {
  if (scale < 2) throw new Error('a currency without cents has no outcome band');
  return Number((minor / 10n ** BigInt(scale - 2)) % 100n);
}
