import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import * as z from 'zod/mini';
import { addressFormatOf, isEvmAddress } from '#domain/networks.ts';
import { centsOf, withdrawalBands as band } from '#contract/outcomeBands.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { keys } from '#store/keys.ts';
import {
  ChainSendUnanswered,
  type ChainMoveRequest,
  type ChainMoveState,
  type ChainSender,
  type ChainSendRequest,
  type ChainSendSubmission,
  type ChainTransferState,
  type GasOracle,
} from '#providers/chain.ts';
import { countAttempt, firstEntry, readEntry, secondsFrom, Simulator } from './book.ts';

// ---------------------------------------------------------------------------------------------
// The gas oracle simulator: fixed figures per network, of the order real networks charge.

/** USDC minor units (scale 6) of one USDC transfer, per EVM network. */
export const simulatedGasCosts: Readonly<Record<string, bigint>> = {
  base: 10_000n,
  ethereum: 400_000n,
  polygon: 5_000n,
  arbitrum: 10_000n,
  optimism: 10_000n,
  avalanche: 20_000n,
};

export class SimulatedGasOracle implements GasOracle {
  async estimate(network: string): Promise<bigint> {
    const cost = Object.hasOwn(simulatedGasCosts, network) ? simulatedGasCosts[network] : undefined;
    // A network the oracle does not price is a missing price, not a free send.
    if (cost === undefined) throw new ProviderUnavailable(`no gas price for ${network}`);
    return cost;
  }
}

// ---------------------------------------------------------------------------------------------
// The chain-send simulator: a custodian that pretends. Outcome bands (functions/contract/outcomeBands.ts)
// are keyed on the cents of the USDC withdrawn, like the payout simulator's (docs/decisions/040):
// 100.93 USDC → band 93. Any other cents: SENT, confirmed on chain with a transaction hash.

/** Sends of band 93 that answer ProviderUnavailable before one is accepted. */
export const unavailableSends = 2;

export function withdrawalBand(withdrawn: bigint): number {
  return centsOf(withdrawn, 6);
}

/** Seconds a simulated transfer stays pending after acceptance (CHAIN_CONFIRM_SECONDS, default 0). */
export function confirmSeconds(): number {
  return secondsFrom('CHAIN_CONFIRM_SECONDS');
}

/** Seconds a simulated move home takes (CHAIN_CROSSING_SECONDS, default 0). */
export function crossingSeconds(): number {
  return secondsFrom('CHAIN_CROSSING_SECONDS');
}

const zeroAddress = `0x${'0'.repeat(40)}`;

const bookItemSchema = z.object({
  entity: z.literal('simulatedChainTransfer'),
  reference: z.string(),
  transferId: z.string(),
  fromNetwork: z.string(),
  network: z.string(),
  toAddress: z.string(),
  amount: z.string().check(z.regex(/^\d+$/)),
  withdrawn: z.string().check(z.regex(/^\d+$/)),
  band: z.number().check(z.int()),
  acceptedAt: z.string(),
  txHash: z.string().check(z.regex(/^0x[0-9a-f]{64}$/)),
});
type BookItem = z.infer<typeof bookItemSchema>;

const moveSchema = z.object({
  entity: z.literal('simulatedChainMove'),
  reference: z.string(),
  fromNetwork: z.string(),
  toNetwork: z.string(),
  amount: z.string().check(z.regex(/^\d+$/)),
  acceptedAt: z.string(),
});

/** What a custodian refuses before sending anything. */
function refusal(request: ChainSendRequest): string | undefined {
  if (addressFormatOf(request.network) !== 'evm') return `USDC is not sent to EVM addresses on ${request.network}`;
  if (addressFormatOf(request.fromNetwork) !== 'evm') return `the wallet does not hold USDC on ${request.fromNetwork}`;
  if (!isEvmAddress(request.toAddress)) return 'the destination is not an EVM address';
  if (request.toAddress.toLowerCase() === zeroAddress) return 'the zero address burns what it receives';
  if (request.amount <= 0n) return 'amount must be positive';
  return undefined;
}

/**
 * Keeps its book in the service's table (./book.ts), as a custodian keeps its own: a transfer
 * survives a restart of the process, and a repeated send of a reference answers the transfer it made.
 */
export class SimulatedChain extends Simulator implements ChainSender {
  readonly name = 'simulated-chain';
  async send(request: ChainSendRequest): Promise<ChainSendSubmission> {
    if (!request.reference) throw new Error('reference is required');
    const first = await this.read(request.reference);
    if (first) return { status: 'accepted', transferId: first.transferId };

    const refused = refusal(request);
    if (refused) return { status: 'refused', reason: refused };
    const outcome = withdrawalBand(request.withdrawn);
    if (outcome === band.refused) return { status: 'refused', reason: 'the destination address is on the custodian’s deny list' };
    if (outcome === band.unanswered) {
      // Nothing recorded: the status query answers `unknown`, and only a person settles it.
      throw new ChainSendUnanswered(`the custodian did not answer the send of ${request.reference}`);
    }
    if (outcome === band.unavailableTwice && (await countAttempt(keys.simulatedChainTransfer(request.reference, 'attempts'), 'simulatedChainAttempts', request.reference)) <= unavailableSends) {
      throw new ProviderUnavailable('the custodian is momentarily unavailable');
    }
    const item: BookItem = {
      entity: 'simulatedChainTransfer',
      reference: request.reference,
      transferId: `sim-tx-${ulid()}`,
      fromNetwork: request.fromNetwork,
      network: request.network,
      toAddress: request.toAddress,
      amount: request.amount.toString(),
      withdrawn: request.withdrawn.toString(),
      band: outcome,
      acceptedAt: this.now().toISOString(),
      // A transaction hash is 32 bytes; the simulated chain draws it, as a real one hashes the transaction.
      txHash: `0x${randomBytes(32).toString('hex')}`,
    };
    // A concurrent send of the same reference won: answer its transfer, never make a second.
    const booked = await firstEntry(keys.simulatedChainTransfer(request.reference), item, bookItemSchema);
    return { status: 'accepted', transferId: booked.transferId };
  }

  async sendStatus(reference: string): Promise<ChainTransferState> {
    const item = await this.read(reference);
    if (!item) return { status: 'unknown' };
    if (item.band === band.cancelled) return { status: 'cancelled', reason: 'cancelled by the custodian before broadcast' };
    if (item.band === band.review) return { status: 'review', reason: "held by the custodian's transfer review" };
    const confirmedAt = Date.parse(item.acceptedAt) + confirmSeconds() * 1000;
    if (this.now().getTime() < confirmedAt) return { status: 'pending' };
    return { status: 'confirmed', txHash: item.txHash };
  }

  async moveHome(request: ChainMoveRequest): Promise<void> {
    if (!request.reference) throw new Error('reference is required');
    if (request.amount <= 0n) throw new Error('amount must be positive');
    // The same move asked again: the first one stands.
    await firstEntry(
      keys.simulatedChainTransfer(`move:${request.reference}`),
      {
        entity: 'simulatedChainMove',
        reference: request.reference,
        fromNetwork: request.fromNetwork,
        toNetwork: request.toNetwork,
        amount: request.amount.toString(),
        acceptedAt: this.now().toISOString(),
      },
      moveSchema,
    );
  }

  async moveHomeStatus(reference: string): Promise<ChainMoveState> {
    const move = await readEntry(keys.simulatedChainTransfer(`move:${reference}`), moveSchema);
    if (!move) return { status: 'unknown' };
    const arrivesAt = Date.parse(move.acceptedAt) + crossingSeconds() * 1000;
    return this.now().getTime() < arrivesAt ? { status: 'moving' } : { status: 'arrived' };
  }

  private read(reference: string): Promise<BookItem | undefined> {
    return readEntry(keys.simulatedChainTransfer(reference), bookItemSchema);
  }
}
