import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { corridorCatalogue, type CorridorDefinition, type CorridorRoute } from '#domain/corridors.ts';
import { basisPoints, convertFloor, fraction, fractionOf, scaleOf, type Fraction } from '#domain/money.ts';
import { crossingFees, price, type Price, type PricingRefusal } from '#domain/pricing.ts';

const USDC = 1_000_000n;
const home = 'base';

/** Plausible mid rates per USDC (the simulated FX levels); the properties move them ±5 %. */
const plausibleMid: Readonly<Record<string, string>> = {
  MXN: '18.4127',
  BRL: '5.4183',
  COP: '4102.35',
  NGN: '1551.20',
  PHP: '58.0415',
  INR: '85.1230',
  EUR: '0.9213',
  GBP: '0.7904',
  VND: '25412',
};

function midFor(currency: string, driftBps: number): Fraction {
  const base = plausibleMid[currency];
  if (!base) throw new Error(`no plausible rate for ${currency}`);
  const f = fractionOf(base);
  return fraction(f.numerator * BigInt(10_000 + driftBps), f.denominator * 10_000n);
}

const anyCorridor = fc.constantFrom(...corridorCatalogue);
const drift = fc.integer({ min: -500, max: 500 });
/** 1 USDC .. 10^7 USDC, with the small end (near the fees) well represented. */
const sendAmount = fc.oneof(
  fc.bigInt({ min: USDC, max: 10n * USDC }),
  fc.bigInt({ min: USDC, max: 10_000n * USDC }),
  fc.bigInt({ min: USDC, max: 10_000_000n * USDC }),
);

/**
 * The contract's receive amount, computed independently: floor(net × rate) in WHOLE destination
 * units (the units the rate is quoted in), written at the destination scale.
 */
function wholeUnitsOf(net: bigint, fromScale: number, rate: Fraction, toScale: number): bigint {
  return ((net * rate.numerator) / (rate.denominator * 10n ** BigInt(fromScale))) * 10n ** BigInt(toScale);
}

function isRefusal(result: Price | PricingRefusal): result is PricingRefusal {
  return 'refused' in result;
}

function priced(result: Price | PricingRefusal): Price {
  if (isRefusal(result)) throw new Error(`refused: ${result.refused}`);
  return result;
}

/** An independent model of one route: what it costs and pays from `homeNetwork`, or undefined when unreachable. */
function model(route: CorridorRoute, corridor: CorridorDefinition, send: bigint, homeNetwork: string, mid: Fraction) {
  let networkFee: bigint | null;
  if (route.networks.includes(homeNetwork)) networkFee = null;
  else {
    const fees = route.networks.map((n) => crossingFees[homeNetwork]?.[n]).filter((f): f is bigint => f !== undefined);
    if (fees.length === 0) return undefined;
    networkFee = fees.reduce((a, b) => (a < b ? a : b));
  }
  const fee = route.feeFixed + basisPoints(send, route.feeBps);
  const net = send - fee - (networkFee ?? 0n);
  const marginBps = route.kind === 'owned' ? (route.marginBps ?? 0) : 0;
  const rate = fraction(mid.numerator * BigInt(10_000 - marginBps), mid.denominator * 10_000n);
  const receive = net > 0n ? wholeUnitsOf(net, scaleOf(corridor.from)!, rate, scaleOf(corridor.to)!) : 0n;
  return { route, fee, networkFee, net, rate, marginBps, receive };
}

function sameValue(a: Fraction, b: Fraction): boolean {
  return a.numerator * b.denominator === b.numerator * a.denominator;
}

function corridorTo(to: string, country?: string): CorridorDefinition {
  const found = corridorCatalogue.find((c) => c.to === to && (country === undefined || c.destinationCountry === country));
  if (!found) throw new Error(`no corridor to ${to}`);
  return found;
}

describe('price: the laws, for every corridor of the catalogue', () => {
  it('prices receive = floor((send − fee − networkFee) × rate) in whole destination units with fee = fixed + bps of send, and conserves the money', () => {
    fc.assert(
      fc.property(anyCorridor, sendAmount, drift, (corridor, send, d) => {
        const mid = midFor(corridor.to, d);
        const result = price({ corridor, send, homeNetwork: home, mid });
        if (isRefusal(result)) {
          expect(result.refused).toBe('amount_too_small');
          return;
        }
        const toScale = scaleOf(corridor.to)!;
        const net = send - result.fee - (result.networkFee ?? 0n);
        expect(result.send).toBe(send);
        expect(result.fee).toBe(result.route.feeFixed + basisPoints(send, result.route.feeBps));
        expect(result.receive).toBe(wholeUnitsOf(net, 6, result.rate, toScale));
        // Whole units, and less than one whole unit below the exact conversion: that remainder is
        // the rounding the contract puts between the rate and the receive amount.
        const unit = 10n ** BigInt(toScale);
        expect(result.receive % unit).toBe(0n);
        const exact = { numerator: net * result.rate.numerator * unit, denominator: result.rate.denominator * 1_000_000n };
        expect(result.receive * exact.denominator <= exact.numerator).toBe(true);
        expect(exact.numerator < (result.receive + unit) * exact.denominator).toBe(true);
        // Conservation: every micro-USDC of the send is a fee, a network fee or converted.
        expect(result.fee >= 0n && (result.networkFee ?? 0n) >= 0n && net > 0n).toBe(true);
        expect(result.fee + (result.networkFee ?? 0n) + net).toBe(send);
        expect(result.receive > 0n).toBe(true);
        expect(corridor.routes).toContain(result.route);
      }),
    );
  });

  it('chooses the route paying the recipient most (ties to the faster), recomputed route by route', () => {
    fc.assert(
      fc.property(anyCorridor, sendAmount, drift, (corridor, send, d) => {
        const mid = midFor(corridor.to, d);
        const result = price({ corridor, send, homeNetwork: home, mid });
        const reachable = corridor.routes.map((route) => model(route, corridor, send, home, mid)).filter((m) => m !== undefined);
        expect(reachable.length).toBeGreaterThan(0);
        const best = reachable.reduce((a, b) => (b.receive > a.receive ? b : a));
        if (best.receive <= 0n) {
          expect(result).toMatchObject({ refused: 'amount_too_small' });
          return;
        }
        const chosen = priced(result);
        expect(chosen.receive).toBe(best.receive);
        const tied = reachable.filter((m) => m.receive === best.receive);
        expect(chosen.route.estimatedSeconds).toBe(Math.min(...tied.map((m) => m.route.estimatedSeconds)));
        const mine = reachable.find((m) => m.route === chosen.route)!;
        expect(chosen.fee).toBe(mine.fee);
        expect(chosen.networkFee).toBe(mine.networkFee);
        expect(chosen.receive).toBe(mine.receive);
        expect(sameValue(chosen.rate, mine.rate)).toBe(true);
      }),
    );
  });

  it('charges a network fee iff the home network is not among the route networks, funding on the cheapest crossing', () => {
    fc.assert(
      fc.property(anyCorridor, sendAmount, drift, (corridor, send, d) => {
        const result = price({ corridor, send, homeNetwork: home, mid: midFor(corridor.to, d) });
        if (isRefusal(result)) return;
        const onHome = result.route.networks.includes(home);
        expect(result.networkFee === null).toBe(onHome);
        if (onHome) expect(result.fundingNetwork).toBe(home);
        else {
          expect(result.route.networks).toContain(result.fundingNetwork);
          expect(result.networkFee).toBe(crossingFees[home]?.[result.fundingNetwork]);
          for (const network of result.route.networks) {
            const fee = crossingFees[home]?.[network];
            if (fee !== undefined) expect(result.networkFee! <= fee).toBe(true);
          }
        }
      }),
    );
  });

  it('takes a margin only on owned routes, inside the rate: rate = mid × (10000 − bps)/10000', () => {
    fc.assert(
      fc.property(anyCorridor, sendAmount, drift, (corridor, send, d) => {
        const mid = midFor(corridor.to, d);
        const result = price({ corridor, send, homeNetwork: home, mid });
        if (isRefusal(result)) return;
        const net = send - result.fee - (result.networkFee ?? 0n);
        if (result.route.kind === 'owned' && (result.route.marginBps ?? 0) > 0) {
          const bps = result.route.marginBps!;
          expect(result.margin).toStrictEqual({ bps, amount: basisPoints(net, bps) });
          expect(result.rate.numerator * mid.denominator * 10_000n).toBe(mid.numerator * BigInt(10_000 - bps) * result.rate.denominator);
          // The margin makes the rate strictly worse than mid, never better.
          expect(result.rate.numerator * mid.denominator < mid.numerator * result.rate.denominator).toBe(true);
        } else {
          expect(result.margin).toBeNull();
          expect(sameValue(result.rate, mid)).toBe(true);
        }
      }),
    );
  });

  it('never pays more than the mid rate would for the whole send', () => {
    fc.assert(
      fc.property(anyCorridor, sendAmount, drift, (corridor, send, d) => {
        const mid = midFor(corridor.to, d);
        const result = price({ corridor, send, homeNetwork: home, mid });
        if (isRefusal(result)) return;
        expect(result.receive <= convertFloor(send, 6, mid, scaleOf(corridor.to)!)).toBe(true);
      }),
    );
  });

  it('is monotone non-decreasing in the send amount, per route and for the best route', () => {
    fc.assert(
      fc.property(anyCorridor, sendAmount, sendAmount, drift, (corridor, a, b, d) => {
        const mid = midFor(corridor.to, d);
        const [low, high] = a <= b ? [a, b] : [b, a];
        const receiveOf = (c: CorridorDefinition, send: bigint) => {
          const result = price({ corridor: c, send, homeNetwork: home, mid });
          return isRefusal(result) ? 0n : result.receive;
        };
        expect(receiveOf(corridor, low) <= receiveOf(corridor, high)).toBe(true);
        for (const route of corridor.routes) {
          const single = { ...corridor, routes: [route] };
          expect(receiveOf(single, low) <= receiveOf(single, high)).toBe(true);
        }
      }),
    );
  });

  it('is monotone one micro-USDC at a time (a fee in bps never eats more than the added unit)', () => {
    fc.assert(
      fc.property(anyCorridor, sendAmount, drift, (corridor, send, d) => {
        const mid = midFor(corridor.to, d);
        for (const route of corridor.routes) {
          const single = { ...corridor, routes: [route] };
          const now = price({ corridor: single, send, homeNetwork: home, mid });
          const next = price({ corridor: single, send: send + 1n, homeNetwork: home, mid });
          if (isRefusal(now)) continue;
          const after = priced(next);
          expect(after.receive >= now.receive).toBe(true);
          expect(after.fee - now.fee <= 1n && after.fee >= now.fee).toBe(true);
        }
      }),
    );
  });

  it('refuses no_route_for_chain from a network no route can be funded from', () => {
    fc.assert(
      fc.property(anyCorridor, sendAmount, drift, fc.constantFrom('bitcoin', 'litecoin', 'toString', '__proto__', 'constructor', ''), (corridor, send, d, network) => {
        const result = price({ corridor, send, homeNetwork: network, mid: midFor(corridor.to, d) });
        expect(result).toMatchObject({ refused: 'no_route_for_chain' });
        expect((result as PricingRefusal).message).toContain(network);
      }),
    );
  });

  it('refuses amount_too_small below the fees, and for any amount that cannot pay one destination unit', () => {
    for (const corridor of corridorCatalogue) {
      const mid = midFor(corridor.to, 0);
      for (const send of [-1n, 0n, 1n, 100n, 200_000n]) expect(price({ corridor, send, homeNetwork: home, mid }), `${corridor.to} ${send}`).toMatchObject({ refused: 'amount_too_small' });
    }
    fc.assert(
      fc.property(anyCorridor, drift, fc.bigInt({ min: 0n, max: 5n * USDC }), (corridor, d, send) => {
        const mid = midFor(corridor.to, d);
        const models = corridor.routes.map((route) => model(route, corridor, send, home, mid)).filter((m) => m !== undefined);
        const cheapest = models.reduce((low, m) => (m.fee + (m.networkFee ?? 0n) < low ? m.fee + (m.networkFee ?? 0n) : low), send + 1n);
        const result = price({ corridor, send, homeNetwork: home, mid });
        if (send <= cheapest) expect(result).toMatchObject({ refused: 'amount_too_small' });
        if (models.every((m) => m.receive <= 0n)) expect(result).toMatchObject({ refused: 'amount_too_small' });
        else expect(priced(result).receive).toBe(models.reduce((a, m) => (m.receive > a ? m.receive : a), 0n));
      }),
    );
  });
});

describe('price: worked examples (100 USDC from base)', () => {
  const send = 100n * USDC;

  it('MXN: the owned SPEI route beats the orchestrator even with its 35 bps margin', () => {
    const result = priced(price({ corridor: corridorTo('MXN'), send, homeNetwork: home, mid: fractionOf('18.4127') }));
    expect(result.route.provider).toBe('owned-mx-spei');
    expect(result.fee).toBe(350_000n); // 0.25 + 10 bps of 100
    expect(result.networkFee).toBeNull();
    expect(result.fundingNetwork).toBe('base');
    expect(result.rate).toStrictEqual({ numerator: 366_965_111n, denominator: 20_000_000n }); // 18.34825555
    expect(result.margin).toStrictEqual({ bps: 35, amount: 348_775n });
    expect(result.receive).toBe(182_800n); // 99.65 × 18.34825555 = 1828.40…: 1828 whole pesos
  });

  it('MXN from ethereum: only the orchestrator is reachable, without a crossing', () => {
    const result = priced(price({ corridor: corridorTo('MXN'), send, homeNetwork: 'ethereum', mid: fractionOf('18.4127') }));
    expect(result.route.provider).toBe('orchestrator-a');
    expect(result.fee).toBe(1_500_000n);
    expect(result.networkFee).toBeNull();
    expect(result.fundingNetwork).toBe('ethereum');
    expect(result.margin).toBeNull();
    expect(result.receive).toBe(181_300n); // 98.5 × 18.4127 = 1813.65…: 1813 whole pesos
  });

  it('COP: funded on solana through a crossing', () => {
    const result = priced(price({ corridor: corridorTo('COP'), send, homeNetwork: home, mid: fractionOf('4102.35') }));
    expect(result.fundingNetwork).toBe('solana');
    expect(result.networkFee).toBe(300_000n);
    expect(result.fee).toBe(2_300_000n);
    expect(result.receive).toBe(39_956_800n); // 97.4 × 4102.35 = 399 568.89: 399 568 whole pesos
  });

  it('VND (scale 0): funded on tron, floored to whole dong', () => {
    const result = priced(price({ corridor: corridorTo('VND'), send, homeNetwork: home, mid: fractionOf('25412') }));
    expect(result.fundingNetwork).toBe('tron');
    expect(result.networkFee).toBe(1_000_000n);
    expect(result.fee).toBe(2_200_000n);
    expect(result.receive).toBe(2_459_881n); // 96.8 × 25412 = 2 459 881.6
  });

  it('EUR: 100 USDC at 0.9213 pays 91 EUR (91.48 floored to whole euros)', () => {
    const result = priced(price({ corridor: corridorTo('EUR', 'DE'), send, homeNetwork: home, mid: fractionOf('0.9213') }));
    expect(result.fee).toBe(700_000n);
    expect(result.receive).toBe(9_100n);
  });

  it('COP and VND cannot be funded from ethereum (no crossing from there)', () => {
    for (const to of ['COP', 'VND']) {
      expect(price({ corridor: corridorTo(to), send, homeNetwork: 'ethereum', mid: fractionOf(plausibleMid[to]!) })).toMatchObject({ refused: 'no_route_for_chain' });
    }
  });

  it('bitcoin is refused no_route_for_chain for every corridor', () => {
    for (const corridor of corridorCatalogue) {
      expect(price({ corridor, send, homeNetwork: 'bitcoin', mid: midFor(corridor.to, 0) })).toMatchObject({ refused: 'no_route_for_chain' });
    }
  });
});

describe('price: between routes of one corridor', () => {
  const route = (provider: string, change: Partial<CorridorRoute> = {}): CorridorRoute => ({
    provider, kind: 'orchestrator', feeFixed: 1_000_000n, feeBps: 0, networks: ['base'], estimatedSeconds: 600, quoteValiditySeconds: 60, instant: false, ...change,
  });
  const corridor = (...routes: CorridorRoute[]): CorridorDefinition => ({ from: 'USDC', to: 'EUR', destinationCountry: 'DE', ownedRail: false, instant: false, routes });
  const chosen = (...routes: CorridorRoute[]) => priced(price({ corridor: corridor(...routes), send: 100_000_000n, homeNetwork: 'base', mid: fractionOf('0.9') }));

  it('a tie on what the recipient gets goes to the faster route, in either order', () => {
    expect(chosen(route('slow'), route('fast', { estimatedSeconds: 60 })).route.provider).toBe('fast');
    expect(chosen(route('fast', { estimatedSeconds: 60 }), route('slow')).route.provider).toBe('fast');
    expect(chosen(route('first'), route('same'))).toMatchObject({ route: { provider: 'first' }, receive: 89_00n });
    expect(chosen(route('cheap', { feeFixed: 0n }), route('dear', { estimatedSeconds: 1 })).route.provider).toBe('cheap');
  });

  it('funds a route on its cheapest crossing, whatever the order of its networks', () => {
    for (const networks of [['ethereum', 'polygon', 'solana'], ['solana', 'polygon', 'ethereum'], ['polygon', 'ethereum']]) {
      expect(chosen(route('r', { networks })), networks.join()).toMatchObject({ fundingNetwork: 'polygon', networkFee: 250_000n });
    }
  });
});
