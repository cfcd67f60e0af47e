import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { providerPort } from '#platform/providerPorts.ts';
import { buildBrCode } from '#domain/brCode.ts';
import { isAddressOn } from '#domain/networks.ts';
import { pixMaximum, pixMinimum } from '#operations/onRamp/pricing.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';

import { type OutcomeBand, centsOf } from './outcomeBands.ts';

/**
 * The on-ramp provider port: what stands between fiat arriving and USDC in the home wallet.
 *
 * - collection: a PIX charge (a BR Code) at the PIX PSP, or for a wire the expected deposit
 *   registered with the collection bank; the payer pays it;
 * - conversion: the received fiat is turned into USDC at the issuer (or handed back);
 * - delivery: the USDC is minted and transferred to the home wallet; answers a txHash, then
 *   confirms on chain.
 *
 * `simulated` uses the simulator below; sandbox and production need a real adapter, and until one
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

// ---------------------------------------------------------------------------------------------
// The simulator. Outcome bands are keyed on the cents of the fiat amount: 100.92 USD → band 92
// (docs/decisions/054-wire-onramps.md, 055-pix-onramps.md).

export const simulatedOnRampName = 'simulated-onramp';

export const onRampOutcomeBands: readonly OutcomeBand[] = [
  {
    cents: 92,
    outcome: 'REFUNDED',
    description: "The payment arrives, but the payer's money is returned before conversion (the issuer refuses the funds); webhook onramp.refunded; nothing is credited.",
  },
  {
    cents: 94,
    outcome: 'IN_DOUBT',
    description: 'The USDC delivery to the home wallet is not answered: it may have been sent. Parked for reconciliation, never sent again; nothing is credited.',
  },
  {
    cents: 97,
    outcome: 'FAILED',
    description:
      'The collection cannot be opened: a wire deposit opened by POST /treasury/onramp fails before any payment (POST /treasury/onramp/pix answers 422 pix_onramp_unavailable); a wire that arrives unannounced stops before conversion.',
  },
];

const band = { refunded: 92, unanswered: 94, failed: 97 } as const;

/** The band of a fiat amount in minor units of a two-decimal currency: its cents. */
export function onRampBand(fiatAmount: bigint): number {
  return centsOf(fiatAmount, 2);
}

/** Seconds a delivery stays unconfirmed on chain (ONRAMP_CONFIRM_SECONDS, default 0); read on every call so tests can change it. */
export function confirmSeconds(): number {
  const text = process.env.ONRAMP_CONFIRM_SECONDS;
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,6}$/.test(text)) throw new Error('ONRAMP_CONFIRM_SECONDS must be a whole number of seconds');
  return Number(text);
}

const servedCurrencies: Record<CollectionRail, readonly string[]> = { wire: ['USD', 'EUR'], pix: ['BRL'] };
const digits = z.string().regex(/^\d+$/);

const collectionSchema = z.object({
  entity: z.literal('simulatedOnRampCollection'),
  reference: z.string(),
  rail: z.enum(['wire', 'pix']),
  currency: z.string(),
  amount: digits,
  openedAt: z.string(),
  expiresAt: z.string(),
  brCode: z.string().optional(),
  paidAt: z.string().optional(),
});
type Collection = z.infer<typeof collectionSchema>;

const deliverySchema = z.object({
  entity: z.literal('simulatedOnRampDelivery'),
  reference: z.string(),
  network: z.string(),
  address: z.string(),
  amount: digits,
  txHash: z.string(),
  sentAt: z.string(),
});
type Delivery = z.infer<typeof deliverySchema>;

/**
 * Keeps its book in the service's table, as a real PSP and issuer keep theirs: a code opened
 * before a restart is the same code after it, and a delivery is made once per reference.
 */
export class SimulatedOnRamps implements OnRampProvider {
  readonly name = simulatedOnRampName;
  private readonly now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.now = options.now ?? (() => new Date());
  }

  async openCollection(request: CollectionRequest): Promise<CollectionAnswer> {
    const first = await this.readCollection(request.reference);
    if (first) return { status: 'opened', expiresAt: first.expiresAt, ...(first.brCode ? { brCode: first.brCode } : {}) };

    if (!servedCurrencies[request.rail].includes(request.currency)) return { status: 'refused', reason: `${request.currency} is not collected by ${request.rail}` };
    if (request.amount <= 0n) return { status: 'refused', reason: 'amount must be positive' };
    if (request.rail === 'pix' && (request.amount < pixMinimum || request.amount > pixMaximum)) {
      return { status: 'refused', reason: 'amount outside the PIX limits' };
    }
    if (onRampBand(request.amount) === band.failed) return { status: 'refused', reason: 'the collection provider refused to open a collection' };

    const item: Collection = {
      entity: 'simulatedOnRampCollection',
      reference: request.reference,
      rail: request.rail,
      currency: request.currency,
      amount: request.amount.toString(),
      openedAt: this.now().toISOString(),
      expiresAt: request.expiresAt.toISOString(),
      ...(request.rail === 'pix' ? { brCode: this.brCodeFor(request.reference, request.amount) } : {}),
    };
    try {
      await dynamo().send(
        new PutCommand({ TableName: tableName(), Item: { ...keys.simulatedOnRamp(request.reference, 'collection'), ...item }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A concurrent opening of the same reference won: answer its code, never a second one.
      const winner = await this.readCollection(request.reference);
      if (!winner) throw error;
      return { status: 'opened', expiresAt: winner.expiresAt, ...(winner.brCode ? { brCode: winner.brCode } : {}) };
    }
    return { status: 'opened', expiresAt: item.expiresAt, ...(item.brCode ? { brCode: item.brCode } : {}) };
  }

  async collectionStatus(reference: string): Promise<CollectionState> {
    const item = await this.readCollection(reference);
    if (!item) return { status: 'unknown' };
    if (item.paidAt) return { status: 'paid', amount: BigInt(item.amount), paidAt: item.paidAt };
    return { status: 'open', expiresAt: item.expiresAt };
  }

  async payCollection(reference: string, now = this.now()): Promise<{ paid: true } | { paid: false; reason: string }> {
    const item = await this.readCollection(reference);
    if (!item) return { paid: false, reason: 'no such collection' };
    if (item.paidAt) return { paid: false, reason: 'already paid' };
    try {
      // A code is paid once, and never after it expired: the PSP refuses the payer then.
      await dynamo().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.simulatedOnRamp(reference, 'collection'),
          UpdateExpression: 'SET paidAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(paidAt) AND expiresAt > :now',
          ExpressionAttributeValues: { ':now': now.toISOString() },
        }),
      );
      return { paid: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const again = await this.readCollection(reference);
      return { paid: false, reason: again?.paidAt ? 'already paid' : 'the code has expired' };
    }
  }

  async convert(request: { reference: string; currency: string; amount: bigint }): Promise<ConversionAnswer> {
    if (!['USD', 'EUR', 'BRL'].includes(request.currency)) return { status: 'refused', reason: `${request.currency} is not converted` };
    if (request.amount <= 0n) return { status: 'refused', reason: 'nothing to convert' };
    // Decided by the amount alone, so a repeat answers the same: nothing to record.
    const cents = onRampBand(request.amount);
    if (cents === band.refunded) return { status: 'returned', reason: "the issuer refused the funds; the payer's money was returned" };
    if (cents === band.failed) return { status: 'refused', reason: 'the issuer stopped the conversion' };
    return { status: 'converted' };
  }

  async deliver(request: DeliveryRequest): Promise<DeliveryAnswer> {
    const first = await this.readDelivery(request.reference);
    if (first) return { status: 'sent', txHash: first.txHash };
    if (request.amount <= 0n) return { status: 'rejected', reason: 'nothing to deliver' };
    if (!isAddressOn(request.network, request.address)) return { status: 'rejected', reason: `${request.address} is not an address on ${request.network}` };
    if (onRampBand(request.fiatAmount) === band.unanswered) {
      // Nothing is recorded: the status query then answers `unknown`, and only a person settles it.
      throw new DeliveryUnanswered(`the issuer did not answer the delivery of ${request.reference}`);
    }
    const item: Delivery = {
      entity: 'simulatedOnRampDelivery',
      reference: request.reference,
      network: request.network,
      address: request.address,
      amount: request.amount.toString(),
      txHash: `0x${createHash('sha256').update(`simulated-onramp-delivery:${request.reference}`).digest('hex')}`,
      sentAt: this.now().toISOString(),
    };
    try {
      await dynamo().send(
        new PutCommand({ TableName: tableName(), Item: { ...keys.simulatedOnRamp(request.reference, 'delivery'), ...item }, ConditionExpression: 'attribute_not_exists(pk)' }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const winner = await this.readDelivery(request.reference);
      if (!winner) throw error;
      return { status: 'sent', txHash: winner.txHash };
    }
    return { status: 'sent', txHash: item.txHash };
  }

  async deliveryStatus(reference: string): Promise<DeliveryState> {
    const item = await this.readDelivery(reference);
    if (!item) return { status: 'unknown' };
    const confirmedAt = Date.parse(item.sentAt) + confirmSeconds() * 1000;
    return this.now().getTime() < confirmedAt ? { status: 'pending', txHash: item.txHash } : { status: 'confirmed', txHash: item.txHash };
  }

  /** A dynamic BR Code whose location and txid derive from the reference, so the same charge always shows the same code. */
  private brCodeFor(reference: string, amount: bigint): string {
    const digest = createHash('sha256').update(`simulated-pix:${reference}`).digest('hex');
    const txid = BigInt(`0x${digest.slice(0, 30)}`).toString(36).toUpperCase().slice(0, 25);
    return buildBrCode({
      location: `pix.simulated.invalid/qr/v2/${digest.slice(0, 32)}`,
      amount,
      merchantName: 'CROSS-BORDER SIMULATED',
      merchantCity: 'SAO PAULO',
      txid,
    });
  }

  private async readCollection(reference: string): Promise<Collection | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.simulatedOnRamp(reference, 'collection'), ConsistentRead: true }));
    return Item ? collectionSchema.parse(Item) : undefined;
  }

  private async readDelivery(reference: string): Promise<Delivery | undefined> {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.simulatedOnRamp(reference, 'delivery'), ConsistentRead: true }));
    return Item ? deliverySchema.parse(Item) : undefined;
  }
}

const onRampProviderPort = providerPort<OnRampProvider>('onRamp', () => new SimulatedOnRamps());

/** Wiring (or a test) installs another provider here; `undefined` goes back to the environment's default. */
export const useOnRampProvider = onRampProviderPort.use;

export const onRampProvider = onRampProviderPort.get;
