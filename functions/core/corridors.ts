/**
 * The corridor catalogue: where a payment can go, through which routes, and what each rail
 * needs to know about the beneficiary. GET /capabilities publishes `corridors`; quotes and
 * payments choose a route from `routesOf`. (Interface fixed here; catalogue being filled in.)
 */
import type { Beneficiary } from '#schemas/transactions.ts';

/** The capabilities view of a corridor (contract: Capabilities). */
export interface Corridor {
  from: string;
  to: string;
  destinationCountry: string;
  ownedRail: boolean;
  instant: boolean;
}

/** One way to pay a corridor out. */
export interface CorridorRoute {
  /** Opaque route label, shown as `provider` on quotes and payments. */
  provider: string;
  kind: 'orchestrator' | 'owned';
  /** Fee in USDC minor units (scale 6): fixed part plus basis points of the send amount. */
  feeFixed: bigint;
  feeBps: number;
  /** Owned routes only: basis points taken inside the rate (shown as `margin`). */
  marginBps?: number;
  /** Networks the rail can be funded on; a home wallet elsewhere needs a crossing (networkFee). */
  networks: readonly string[];
  estimatedSeconds: number;
  /** How long the provider's own quote lasts: a quote never outlives it. */
  quoteValiditySeconds: number;
  instant: boolean;
}

export interface CorridorDefinition extends Corridor {
  routes: readonly CorridorRoute[];
}

export interface BeneficiaryProblems {
  /** Fields the rail needs and the request lacks (400 beneficiary_incomplete, `missing`). */
  missing: string[];
  /** Fields present but malformed for the rail (400 validation), paths from the body root. */
  invalid: { path: (string | number)[]; message: string }[];
}

export const corridorCatalogue: readonly CorridorDefinition[] = [];

export const corridors: readonly Corridor[] = corridorCatalogue.map(({ from, to, destinationCountry, ownedRail, instant }) => ({
  from,
  to,
  destinationCountry,
  ownedRail,
  instant,
}));

export function findCorridor(from: string, to: string, destinationCountry: string): CorridorDefinition | undefined {
  return corridorCatalogue.find((c) => c.from === from && c.to === to && c.destinationCountry === destinationCountry);
}

/** What the corridor's rail would refuse about this beneficiary. */
export function beneficiaryProblems(corridor: CorridorDefinition, beneficiary: Beneficiary | undefined): BeneficiaryProblems {
  void corridor;
  return { missing: beneficiary ? [] : ['beneficiary'], invalid: [] };
}
