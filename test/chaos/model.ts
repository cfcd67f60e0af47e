import { offRampBands, onRampBands, outcomeBands, withdrawalBands } from '#contract/outcomeBands.ts';

/**
 * The chaos harness's model: what the workload asked for and what each operation must end as. The
 * simulators' outcome bands (functions/contract/outcomeBands.ts, docs/decisions/040) make the end of
 * every operation known from its amount, so the model needs no price or fee: the checks hold the
 * service's own records against these ends and against each other.
 */
export type OperationKind = 'payment' | 'withdrawal' | 'deposit' | 'batchItem' | 'offramp' | 'chainDeposit';

export interface Operation {
  kind: OperationKind;
  id: string;
  /** Index of the organization in the run. */
  organization: number;
  /** States the operation may end in (or be parked in for a person). */
  ends: readonly string[];
  /** Where to read its status (GET); a chain deposit has no GET and is read from the table. */
  statusPath: string;
  /** The request that created it, to replay with the same key. */
  replay?: { method: string; path: string; body: unknown };
  /** The amount it was sent with (a decimal string, as in the request): its list row must say the same. */
  amount?: string;
  /** What a chain deposit must credit to available once home (minor units: the amount less the move fee). */
  credits?: bigint;
  /** The parked state (IN_DOUBT, NEEDS_ATTENTION) an operator resolved it from: its events are those of both. */
  resolvedFrom?: string;
}

/**
 * A time an organization's events could not reach it as they were raised (ms since the epoch): from
 * the DELETE of its webhook endpoint to the answer of the PUT that registered it again. An event
 * raised before `to` may have found no endpoint (never sent) or had its delivery stopped (a new
 * registration); `secretLost`: the PUT's answer, with the secret it issued, was lost to a kill, so
 * what was signed until `to` (a rotation answered) cannot be verified by the integrator either.
 */
export interface WebhookGap {
  organization: number;
  from: number;
  to: number;
  secretLost: boolean;
}

export interface Model {
  organizations: number;
  operations: Operation[];
  /** Operations whose first answer was a refusal the model expected (insufficient funds), by kind. */
  refused: Map<string, number>;
  webhookGaps: WebhookGap[];
}

export function emptyModel(organizations: number): Model {
  return { organizations, operations: [], refused: new Map(), webhookGaps: [] };
}

/** A payment's (and a batch item's) end from the cents of the USDC sent. */
export function paymentEnds(cents: number): readonly string[] {
  switch (cents) {
    case outcomeBands.rejected:
    case outcomeBands.failedAfterAcceptance:
      return ['FAILED'];
    case outcomeBands.returned:
      return ['REFUNDED'];
    case outcomeBands.unanswered:
      return ['IN_DOUBT'];
    case outcomeBands.review:
      return ['NEEDS_ATTENTION'];
    default:
      return ['RECONCILED'];
  }
}

/**
 * A withdrawal's end from the cents of the USDC withdrawn; any withdrawal may also end FAILED with
 * nothing moved when the balance does not cover it at the pull (the contract refuses none at intake
 * for funds), which the movement check holds it to.
 */
export function withdrawalEnds(cents: number): readonly string[] {
  return [...withdrawalBandEnds(cents), ...(cents === withdrawalBands.refused ? [] : ['FAILED'])];
}

function withdrawalBandEnds(cents: number): readonly string[] {
  switch (cents) {
    case withdrawalBands.refused:
      return ['FAILED'];
    case withdrawalBands.cancelled:
      return ['RETURNED'];
    case withdrawalBands.unanswered:
      return ['IN_DOUBT'];
    case withdrawalBands.review:
      return ['NEEDS_ATTENTION'];
    default:
      return ['SENT'];
  }
}

export function depositEnds(cents: number): readonly string[] {
  switch (cents) {
    case onRampBands.refunded:
      return ['REFUNDED'];
    case onRampBands.unanswered:
      return ['IN_DOUBT'];
    case onRampBands.failed:
      return ['FAILED'];
    default:
      return ['DELIVERED'];
  }
}

/**
 * An off-ramp's end from the cents of the USDC off-ramped (decision 061); any off-ramp may also
 * end FAILED with nothing moved when the balance does not cover it at the pull (the contract
 * gives POST /treasury/offramp no insufficient_funds), which the movement check holds it to.
 */
export function offRampEnds(cents: number): readonly string[] {
  switch (cents) {
    case offRampBands.refused:
      return ['FAILED'];
    case offRampBands.returned:
      return ['REFUNDED', 'FAILED'];
    case offRampBands.unanswered:
      return ['IN_DOUBT', 'FAILED'];
    default:
      return ['PAID', 'FAILED'];
  }
}

/** Ends that stop polling: final, or parked for a person. */
export const settledStates = new Set(['RECONCILED', 'REFUNDED', 'FAILED', 'IN_DOUBT', 'NEEDS_ATTENTION', 'SENT', 'RETURNED', 'DELIVERED', 'EXPIRED', 'PAID', 'CREDITED']);

/** States an operator resolves from (functions/operations/kit/resolution.ts parkedStatuses). */
export const parkedStates = new Set(['IN_DOUBT', 'NEEDS_ATTENTION']);

/** The cents bands the workload draws from: every band, and ordinary amounts more often. */
export const paymentCents = [0, 10, 25, 50, outcomeBands.rejected, outcomeBands.returned, outcomeBands.unavailableTwice, outcomeBands.unanswered, outcomeBands.review, outcomeBands.shortPaid, outcomeBands.failedAfterAcceptance];
export const withdrawalCents = [0, 10, 50, withdrawalBands.refused, withdrawalBands.cancelled, withdrawalBands.unavailableTwice, withdrawalBands.unanswered, withdrawalBands.review];
export const depositCents = [0, 10, 50, onRampBands.refunded, onRampBands.unanswered, onRampBands.failed];
/** PIX: band 97 is refused at intake (422 pix_onramp_unavailable), the others as a wire's. */
export const pixCents = [0, 10, 50, onRampBands.refunded, onRampBands.unanswered, onRampBands.failed];
export const offRampCents = [0, 10, 50, offRampBands.refused, offRampBands.returned, offRampBands.unavailableTwice, offRampBands.unanswered, offRampBands.slippage];

export function decimal(whole: number, cents: number): string {
  return `${whole}.${String(cents).padStart(2, '0')}`;
}
