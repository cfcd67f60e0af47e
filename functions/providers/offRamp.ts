import { providerPort } from '#platform/providerPorts.ts';
import type { Fraction } from '#domain/money.ts';
import type { CreateBeneficiaryBody } from '#schemas/offramps.ts';

/**
 * The off-ramp provider port: takes USDC sent from the home wallet, converts it and pays the
 * fiat to a registered bank account. `simulated` uses its simulator (functions/simulators/offRamp.ts); sandbox and production
 * need a real adapter, and until one is wired every off-ramp endpoint answers 501 (the endpoint
 * stack turns ProviderNotConfigured into not_implemented with the route's feature).
 */
export interface OffRampDepositRequest {
  /** `${organizationId}:${offRampId}`: the idempotency key at the provider. */
  reference: string;
  /** USDC minor units sent to the provider (what the off-ramp pulled, less our fee). */
  amount: bigint;
  /** USDC minor units the caller off-ramped: the simulator's outcome band is read from its cents. */
  sourceAmount: bigint;
  /** USDC minor units the provider keeps for the bank transfer, out of `amount`. */
  deliveryFee: bigint;
  /** The network the USDC is sent on (the home network). */
  network: string;
  beneficiary: CreateBeneficiaryBody;
  /** A fixed payout in the payout currency's minor units (a quoted net); absent, whatever the conversion produces. */
  payout?: bigint;
}

export type OffRampDeposit = { status: 'credited'; providerDepositId: string } | { status: 'refused'; reason: string };

export type OffRampProgress =
  /** Credited, the payout not final yet. */
  | { status: 'processing' }
  | { status: 'paid'; paid: bigint; slippage: bigint; rate: Fraction }
  /** Paid, then returned by the bank: the provider gives the USDC back. */
  | { status: 'returned'; reason: string }
  /** The provider has no record of this reference. */
  | { status: 'unknown' };

export interface OffRampProvider {
  readonly name: string;
  /**
   * Idempotent on `reference`: a repeat answers the first deposit, never a second one. Throws
   * ProviderUnavailable (nothing was sent: retry) or OffRampDepositUnanswered (the USDC may have
   * left: park IN_DOUBT, never send again).
   */
  deposit(request: OffRampDepositRequest): Promise<OffRampDeposit>;
  progress(reference: string): Promise<OffRampProgress>;
}

/** The deposit went out and no answer came back: the USDC may be at the provider. Never resent. */
export class OffRampDepositUnanswered extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OffRampDepositUnanswered';
  }
}

const offRampProviderPort = providerPort<OffRampProvider>('offRamp');

/** The simulated stage's wiring registers the simulator here (functions/simulators/install.ts). */
export const simulateOffRampProvider = offRampProviderPort.simulateWith;

/** Wiring (or a test) installs another provider here; `undefined` goes back to the environment's default. */
export const useOffRampProvider = offRampProviderPort.use;

export const offRampProvider = offRampProviderPort.get;
