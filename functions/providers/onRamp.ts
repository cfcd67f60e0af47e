import { providerPort } from '#platform/providerPorts.ts';

/**
 * The on-ramp provider port: what stands between fiat arriving and USDC in the home wallet.
 *
 * - collection: a PIX charge (a BR Code) at the PIX PSP, or for a wire the expected deposit
 *   registered with the collection bank; the payer pays it;
 * - conversion: the received fiat is turned into USDC at the issuer (or handed back);
 * - delivery: the USDC is minted and transferred to the home wallet; answers a txHash, then
 *   confirms on chain.
 *
 * `simulated` uses its simulator (functions/simulators/onRamp.ts); sandbox and production need a real adapter, and until one
 * is wired the endpoints answer 501 instead of inventing a deposit.
 */
export type CollectionRail = 'wire' | 'pix';

export interface CollectionRequest {
  /** `${organizationId}:${onRampId}`: unique, the idempotency key at the provider. */
  reference: string;
  rail: CollectionRail;
  currency: string;
  /** Fiat minor units asked. */
  amount: bigint;
  /** When the payer's window closes; the provider refuses payment after it. */
  expiresAt: Date;
}

export type CollectionAnswer = { status: 'opened'; brCode?: string; expiresAt: string } | { status: 'refused'; reason: string };

export type CollectionState =
  | { status: 'open'; expiresAt: string }
  | { status: 'paid'; amount: bigint; paidAt: string }
  /** The provider has no record of this reference. */
  | { status: 'unknown' };

export type ConversionAnswer = { status: 'converted' } | { status: 'returned'; reason: string } | { status: 'refused'; reason: string };

export interface DeliveryRequest {
  reference: string;
  network: string;
  address: string;
  /** USDC minor units (scale 6). */
  amount: bigint;
  /** The fiat the deposit came from: the simulator's band is read from its cents. */
  fiatAmount: bigint;
}

export type DeliveryAnswer = { status: 'sent'; txHash: string } | { status: 'rejected'; reason: string };
export type DeliveryState = { status: 'pending'; txHash: string } | { status: 'confirmed'; txHash: string } | { status: 'unknown' };

export interface OnRampProvider {
  readonly name: string;
  /** Idempotent on `reference`: a repeat answers the first opening (the same BR Code). Throws ProviderUnavailable. */
  openCollection(request: CollectionRequest): Promise<CollectionAnswer>;
  collectionStatus(reference: string): Promise<CollectionState>;
  /** The payer pays an open collection (sandbox only: this is the faked part). */
  payCollection(reference: string, now?: Date): Promise<{ paid: true } | { paid: false; reason: string }>;
  /** `amount` fiat minor units received. Answers the same on a repeat. Throws ProviderUnavailable. */
  convert(request: { reference: string; currency: string; amount: bigint }): Promise<ConversionAnswer>;
  /**
   * Idempotent on `reference`: a repeat answers the first delivery, never a second mint. Throws
   * ProviderUnavailable (nothing was sent: retry) or DeliveryUnanswered (it may have been sent:
   * park IN_DOUBT, never send again).
   */
  deliver(request: DeliveryRequest): Promise<DeliveryAnswer>;
  deliveryStatus(reference: string): Promise<DeliveryState>;
}

/** The delivery went out and no answer came back: the USDC may be on its way. Never resent. */
export class DeliveryUnanswered extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DeliveryUnanswered';
  }
}

const onRampProviderPort = providerPort<OnRampProvider>('onRamp');

/** The simulated stage's wiring registers the simulator here (functions/simulators/install.ts). */
export const simulateOnRampProvider = onRampProviderPort.simulateWith;

/** Wiring (or a test) installs another provider here; `undefined` goes back to the environment's default. */
export const useOnRampProvider = onRampProviderPort.use;

export const onRampProvider = onRampProviderPort.get;
