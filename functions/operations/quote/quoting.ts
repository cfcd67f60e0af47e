import { randomUUID } from 'node:crypto';
import { ApiError, validationError } from '#platform/errors.ts';
import { config } from '#platform/config.ts';
import { fxProvider } from '#providers/fx.ts';
import { ProviderNotConfigured, ProviderUnavailable } from '#platform/providerErrors.ts';
import { findCorridor, type CorridorDefinition } from '#domain/corridors.ts';
import { requestedAmount } from '#operations/kit/amount.ts';
import { price, type Price, type PricingRefusal } from '#domain/pricing.ts';
import type { CorridorInput, DecimalAmount } from '#schemas/common.ts';

/**
 * Pricing a payment as a request asks for it: the amount parsed exactly, the corridor found,
 * the live mid rate from the FX port, the best route. POST /quotes locks the result; POST
 * /transactions without a quote prices with the same function at acceptance.
 */
export const sendCurrency = 'USDC';

export class PricingUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PricingUnavailable';
  }
}

export interface PricedPayment {
  corridor: CorridorDefinition;
  price: Price;
  /** When the locked price stops being honoured: QUOTE_TTL_SECONDS, never past the provider's own quote. */
  expiresAt: Date;
}

/** The send amount in USDC minor units, refused (400 validation) rather than rounded. */
export function sendAmountOf(sendAmount: DecimalAmount): bigint {
  return requestedAmount(sendAmount.amount, sendAmount.currency, ['sendAmount', 'amount'], { currency: sendCurrency, refusal: `only ${sendCurrency} can be sent` });
}

export function corridorOf(input: CorridorInput): CorridorDefinition {
  // The catalogue's rails are simulators: elsewhere no corridor can be paid until an adapter is wired.
  const environment = config().SERVICE_ENVIRONMENT;
  if (environment !== 'simulated') throw new ProviderNotConfigured(`No payout or FX provider is wired on ${environment} yet.`);
  const corridor = findCorridor(sendCurrency, input.to, input.destinationCountry);
  if (!corridor) {
    throw validationError([
      { path: ['corridor'], message: `${sendCurrency} → ${input.to} (${input.destinationCountry}) is not a corridor this service pays; see GET /capabilities` },
    ]);
  }
  return corridor;
}

export async function pricePayment(input: {
  corridor: CorridorDefinition;
  send: bigint;
  homeNetwork: string;
  now?: Date;
}): Promise<PricedPayment> {
  const now = input.now ?? new Date();
  let fx;
  try {
    fx = await fxProvider().quote(input.corridor.from, input.corridor.to, now);
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw new PricingUnavailable(error.message);
    throw error;
  }
  const result = price({ corridor: input.corridor, send: input.send, homeNetwork: input.homeNetwork, mid: fx.rate });
  if ('refused' in result) {
    if (result.refused === 'no_route_for_chain') throw new ApiError('no_route_for_chain', result.message);
    throw validationError([{ path: ['sendAmount', 'amount'], message: result.message }]);
  }
  const ttl = now.getTime() + config().QUOTE_TTL_SECONDS * 1000;
  const providerLimit = Math.min(fx.expiresAt.getTime(), now.getTime() + result.route.quoteValiditySeconds * 1000);
  return { corridor: input.corridor, price: result, expiresAt: new Date(Math.min(ttl, providerLimit)) };
}

export function newQuoteId(): string {
  return `q_${randomUUID()}`;
}

/**
 * Many amounts priced on one route of a corridor at one mid rate (a batch: one rail, one FX
 * quote for all its items). PricingUnavailable when the FX source does not answer.
 */
export async function routePricer(input: { corridor: CorridorDefinition; provider: string; homeNetwork: string; now?: Date }): Promise<(send: bigint) => Price | PricingRefusal> {
  const corridor = { ...input.corridor, routes: input.corridor.routes.filter((route) => route.provider === input.provider) };
  if (corridor.routes.length === 0) throw new Error(`${input.provider} is not a route of this corridor`);
  let fx;
  try {
    fx = await fxProvider().quote(corridor.from, corridor.to, input.now ?? new Date());
  } catch (error) {
    if (error instanceof ProviderUnavailable) throw new PricingUnavailable(error.message);
    throw error;
  }
  return (send) => price({ corridor, send, homeNetwork: input.homeNetwork, mid: fx.rate });
}
