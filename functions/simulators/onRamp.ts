import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createHash } from 'node:crypto';
import * as z from 'zod/mini';
import { buildBrCode } from '#domain/brCode.ts';
import { isAddressOn } from '#domain/networks.ts';
import { pixMaximum, pixMinimum } from '#domain/pixLimits.ts';
import { centsOf, onRampBands } from '#contract/outcomeBands.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import {
  DeliveryUnanswered,
  type CollectionAnswer,
  type CollectionRail,
  type CollectionRequest,
  type CollectionState,
  type ConversionAnswer,
  type DeliveryAnswer,
  type DeliveryRequest,
  type DeliveryState,
  type OnRampProvider,
} from '#providers/onRamp.ts';
import { firstEntry, readEntry, secondsFrom, Simulator } from './book.ts';

/**
 * The on-ramp simulator: a PIX PSP, a collection bank and an issuer that pretend. Outcome bands
 * (functions/contract/outcomeBands.ts) are keyed on the cents of the fiat amount: 100.92 USD →
 * band 92 (docs/decisions/054-wire-onramps.md, 055-pix-onramps.md).
 */
export const simulatedOnRampName = 'simulated-onramp';

/** The band of a fiat amount in minor units of a two-decimal currency: its cents. */
export function onRampBand(fiatAmount: bigint): number {
  return centsOf(fiatAmount, 2);
}

/** Seconds a delivery stays unconfirmed on chain (ONRAMP_CONFIRM_SECONDS, default 0). */
export function confirmSeconds(): number {
  return secondsFrom('ONRAMP_CONFIRM_SECONDS');
}

const servedCurrencies: Record<CollectionRail, readonly string[]> = { wire: ['USD', 'EUR'], pix: ['BRL'] };
const digits = z.string().check(z.regex(/^\d+$/));

const collectionSchema = z.object({
  entity: z.literal('simulatedOnRampCollection'),
  reference: z.string(),
  rail: z.enum(['wire', 'pix']),
  currency: z.string(),
  amount: digits,
  openedAt: z.string(),
  expiresAt: z.string(),
  brCode: z.optional(z.string()),
  paidAt: z.optional(z.string()),
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
 * Keeps its book in the service's table (./book.ts), as a real PSP and issuer keep theirs: a code opened
 * before a restart is the same code after it, and a delivery is made once per reference.
 */
export class SimulatedOnRamps extends Simulator implements OnRampProvider {
  readonly name = simulatedOnRampName;
  async openCollection(request: CollectionRequest): Promise<CollectionAnswer> {
    const first = await this.readCollection(request.reference);
    if (first) return { status: 'opened', expiresAt: first.expiresAt, ...(first.brCode ? { brCode: first.brCode } : {}) };

    if (!servedCurrencies[request.rail].includes(request.currency)) return { status: 'refused', reason: `${request.currency} is not collected by ${request.rail}` };
    if (request.amount <= 0n) return { status: 'refused', reason: 'amount must be positive' };
    if (request.rail === 'pix' && (request.amount < pixMinimum || request.amount > pixMaximum)) {
      return { status: 'refused', reason: 'amount outside the PIX limits' };
    }
    if (onRampBand(request.amount) === onRampBands.failed) return { status: 'refused', reason: 'the collection provider refused to open a collection' };

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
    // A concurrent opening of the same reference won: answer its code, never a second one.
    const opened = await firstEntry(keys.simulatedOnRamp(request.reference, 'collection'), item, collectionSchema);
    return { status: 'opened', expiresAt: opened.expiresAt, ...(opened.brCode ? { brCode: opened.brCode } : {}) };
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
    if (cents === onRampBands.refunded) return { status: 'returned', reason: "the issuer refused the funds; the payer's money was returned" };
    if (cents === onRampBands.failed) return { status: 'refused', reason: 'the issuer stopped the conversion' };
    return { status: 'converted' };
  }

  async deliver(request: DeliveryRequest): Promise<DeliveryAnswer> {
    const first = await this.readDelivery(request.reference);
    if (first) return { status: 'sent', txHash: first.txHash };
    if (request.amount <= 0n) return { status: 'rejected', reason: 'nothing to deliver' };
    if (!isAddressOn(request.network, request.address)) return { status: 'rejected', reason: `${request.address} is not an address on ${request.network}` };
    if (onRampBand(request.fiatAmount) === onRampBands.unanswered) {
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
    const sent = await firstEntry(keys.simulatedOnRamp(request.reference, 'delivery'), item, deliverySchema);
    return { status: 'sent', txHash: sent.txHash };
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

  private readCollection(reference: string): Promise<Collection | undefined> {
    return readEntry(keys.simulatedOnRamp(reference, 'collection'), collectionSchema);
  }

  private readDelivery(reference: string): Promise<Delivery | undefined> {
    return readEntry(keys.simulatedOnRamp(reference, 'delivery'), deliverySchema);
  }
}

