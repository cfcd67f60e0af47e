import { providerPort } from '#platform/providerPorts.ts';
import type { Beneficiary } from '#schemas/transactions.ts';

export { PayoutUnanswered } from '#platform/providerErrors.ts';

/**
 * The payout provider port: pays the destination amount to the beneficiary on the route chosen
 * at pricing. `simulated` uses its simulator (functions/simulators/payout.ts); sandbox and production need a real adapter,
 * and until one is wired a payout fails loudly instead of inventing a success.
 */
export interface PayoutRequest {
  /** Unique per payment, `${organizationId}:${transactionId}`: the idempotency key at the provider. */
  reference: string;
  /** The route label chosen at pricing. */
  provider: string;
  corridor: { from: string; to: string; destinationCountry: string };
  /** Destination minor units to pay. */
  amount: bigint;
  currency: string;
  /** USDC minor units sent (scale 6); the simulator's outcome band is read from it. */
  sourceAmount: bigint;
  beneficiary: Beneficiary;
}

/**
 * A rail that pays at once answers `paidAmount` (destination minor units paid) with the acceptance:
 * the payment then needs no status poll.
 */
export type PayoutSubmission = { status: 'accepted'; providerPayoutId: string; paidAmount?: bigint } | { status: 'rejected'; reason: string };

export type PayoutState =
  | { status: 'processing' }
  | { status: 'paid'; paidAmount: bigint }
  | { status: 'returned'; reason: string }
  | { status: 'failed'; reason: string }
  | { status: 'review'; reason: string }
  /** The provider has no record of this reference. */
  | { status: 'unknown' };

export interface PayoutProvider {
  readonly name: string;
  /**
   * Idempotent on `reference`: a repeat answers the first submission, never a second payout.
   * Throws ProviderUnavailable (nothing was created: retry) or PayoutUnanswered (it may have
   * landed: park IN_DOUBT, never resubmit blindly).
   */
  submit(request: PayoutRequest): Promise<PayoutSubmission>;
  status(reference: string): Promise<PayoutState>;
}

const payoutProviderPort = providerPort<PayoutProvider>('payout');

/** The simulated stage's wiring registers the simulator here (functions/simulators/install.ts). */
export const simulatePayoutProvider = payoutProviderPort.simulateWith;

/** Wiring (or a test) installs another provider here; `undefined` goes back to the environment's default. */
export const usePayoutProvider = payoutProviderPort.use;

export const payoutProvider = payoutProviderPort.get;
