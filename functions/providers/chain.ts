import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomBytes } from 'node:crypto';
import { ulid } from 'ulid';
import { z } from 'zod';
import { providerPort } from '#platform/providerPorts.ts';
import { addressFormatOf, isEvmAddress } from '#domain/networks.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { ProviderUnavailable } from '#platform/providerErrors.ts';
import { type OutcomeBand, centsOf } from './outcomeBands.ts';

/**
 * Two ports for USDC on chain (withdrawals, docs/decisions/060):
 *
 * - the gas oracle: what sending USDC on a network costs now, in USDC minor units;
 * - the chain sender: the custodian's send of USDC from the home wallet to an address, crossing
 *   to the destination network first when it is not the home network.
 *
 * `simulated` uses the simulators below; sandbox and production need real adapters, and until one
 * is wired every call fails with ProviderNotConfigured (the API answers 501) instead of inventing
 * a price or a transaction.
 */
export interface GasOracle {
  /** USDC minor units one USDC transfer on `network` costs now. Throws ProviderUnavailable when the source does not answer. */
  estimate(network: string): Promise<bigint>;
}

export interface ChainSendRequest {
  /** Unique per withdrawal, `${organizationId}:${withdrawalId}`: the idempotency key at the custodian. */
  reference: string;
  /** The network the home wallet holds the USDC on. */
  fromNetwork: string;
  /** The network the USDC arrives on. */
  network: string;
  toAddress: string;
  /** USDC minor units that arrive (the withdrawal's net). */
  amount: bigint;
  /** USDC minor units withdrawn; the simulator's outcome band is read from it. */
  withdrawn: bigint;
}

export type ChainSendSubmission = { status: 'accepted'; transferId: string } | { status: 'refused'; reason: string };

export type ChainTransferState =
  | { status: 'pending' }
  | { status: 'confirmed'; txHash: string }
  /** The custodian cancelled the transfer before broadcasting it: the USDC is still in the wallet. */
  | { status: 'cancelled'; reason: string }
  /** Held by the custodian (policy, compliance); a person decides. */
  | { status: 'review'; reason: string }
  /** The custodian has no record of this reference. */
  | { status: 'unknown' };

export interface ChainSender {
  readonly name: string;
  /**
   * Idempotent on `reference`: a repeat answers the first transfer, never a second send. Throws
   * ProviderUnavailable (nothing was created: retry) or ChainSendUnanswered (it may have been
   * broadcast: park IN_DOUBT, never send again).
   */
  send(request: ChainSendRequest): Promise<ChainSendSubmission>;
  sendStatus(reference: string): Promise<ChainTransferState>;
  /**
   * Moves USDC that arrived in the wallet on another network to the home network (an on-chain
   * deposit). Idempotent on `reference`: a repeat answers the first move. Throws ProviderUnavailable.
   */
  moveHome(request: ChainMoveRequest): Promise<void>;
  moveHomeStatus(reference: string): Promise<ChainMoveState>;
}

export interface ChainMoveRequest {
  reference: string;
  fromNetwork: string;
  toNetwork: string;
  amount: bigint;
}

export type ChainMoveState = { status: 'moving' } | { status: 'arrived' } | { status: 'unknown' };

/**
 * The send went out and no answer came back: the transfer may be on chain. Never retried: a
 * second send could pay the address twice. The name is part of the workflow contract, like the
 * errors of providerErrors.ts.
 */
export class ChainSendUnanswered extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ChainSendUnanswered';
  }
}

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
// The chain-send simulator. Outcome bands are keyed on the cents of the USDC withdrawn, like the
// payout simulator's (docs/decisions/040): 100.93 USDC → band 93. Any other cents: SENT, confirmed
// on chain with a transaction hash.

export const withdrawalOutcomeBands: readonly OutcomeBand[] = [
  { cents: 91, outcome: 'FAILED', description: 'The custodian refuses the destination before any USDC moved; the hold is released.' },
  { cents: 92, outcome: 'RETURNED', description: 'The custodian cancels the transfer before broadcasting it: RETURNING, then RETURNED with the hold released.' },
  { cents: 93, outcome: 'SENT', description: 'The custodian is unavailable for two sends (PENDING_RETRY twice), then the transfer is sent and confirmed.' },
  { cents: 94, outcome: 'IN_DOUBT', description: 'The broadcast goes unanswered: the withdrawal is parked with its funds held and never sent again.' },
  { cents: 95, outcome: 'NEEDS_ATTENTION', description: "Held by the custodian's review: the funds stay held until operations decide." },
];

const band = { refused: 91, cancelled: 92, unavailableTwice: 93, unanswered: 94, review: 95 } as const;

/** Sends of band 93 that answer ProviderUnavailable before one is accepted. */
export const unavailableSends = 2;

export function withdrawalBand(withdrawn: bigint): number {
  return centsOf(withdrawn, 6);
}

/** Seconds a simulated transfer stays pending after acceptance (CHAIN_CONFIRM_SECONDS, default 0). */
export function confirmSeconds(): number {
  const text = process.env.CHAIN_CONFIRM_SECONDS;
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,6}$/.test(text)) throw new Error('CHAIN_CONFIRM_SECONDS must be a whole number of seconds');
  return Number(text);
}

/** Seconds a simulated move home takes (CHAIN_CROSSING_SECONDS, default 0). */
export function crossingSeconds(): number {
  const text = process.env.CHAIN_CROSSING_SECONDS;
  if (text === undefined || text === '') return 0;
  if (!/^\d{1,6}$/.test(text)) throw new Error('CHAIN_CROSSING_SECONDS must be a whole number of seconds');
  return Number(text);
}

const zeroAddress = `0x${'0'.repeat(40)}`;

const bookItemSchema = z.object({
  entity: z.literal('simulatedChainTransfer'),
  reference: z.string(),
  transferId: z.string(),
  fromNetwork: z.string(),
  network: z.string(),
  toAddress: z.string(),
  amount: z.string().regex(/^\d+$/),
  withdrawn: z.string().regex(/^\d+$/),
  band: z.number().int(),
  acceptedAt: z.string(),
  txHash: z.string().regex(/^0x[0-9a-f]{64}$/),
});
type BookItem = z.infer<typeof bookItemSchema>;

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
 * Keeps its book in the service's table, as a custodian keeps its own: a transfer survives a
 * restart of the process, and a repeated send of a reference answers the transfer it made.
 */
export class SimulatedChain implements ChainSender {
  readonly name = 'simulated-chain';
  private readonly now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.now = options.now ?? (() => new Date());
  }

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
    if (outcome === band.unavailableTwice && (await this.countAttempt(request.reference)) <= unavailableSends) {
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
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName(),
          Item: { ...keys.simulatedChainTransfer(request.reference), ...item },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A concurrent send of the same reference won: answer its transfer, never make a second.
      const winner = await this.read(request.reference);
      if (!winner) throw error;
      return { status: 'accepted', transferId: winner.transferId };
    }
    return { status: 'accepted', transferId: item.transferId };
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
    const item = {
      ...keys.simulatedChainTransfer(`move:${request.reference}`),
      entity: 'simulatedChainMove',
      reference: request.reference,
      fromNetwork: request.fromNetwork,
      toNetwork: request.toNetwork,
      amount: request.amount.toString(),
      acceptedAt: this.now().toISOString(),
    };
    try {
      await dynamo().send(new PutCommand({ TableName: tableName(), Item: item, ConditionExpression: 'attribute_not_exists(pk)' }));
    } catch (error) {
      // The same move asked again: the first one stands.
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async moveHomeStatus(reference: string): Promise<ChainMoveState> {
    const { Item } = await dynamo().send(
      new GetCommand({ TableName: tableName(), Key: keys.simulatedChainTransfer(`move:${reference}`), ConsistentRead: true }),
    );
    if (!Item) return { status: 'unknown' };
    const arrivesAt = Date.parse(String(Item.acceptedAt)) + crossingSeconds() * 1000;
    return this.now().getTime() < arrivesAt ? { status: 'moving' } : { status: 'arrived' };
  }

  private async read(reference: string): Promise<BookItem | undefined> {
    const result = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.simulatedChainTransfer(reference), ConsistentRead: true }));
    return result.Item ? bookItemSchema.parse(result.Item) : undefined;
  }

  /** Counts this send attempt of a reference; answers the count including it. */
  private async countAttempt(reference: string): Promise<number> {
    const result = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.simulatedChainTransfer(reference, 'attempts'),
        UpdateExpression: 'ADD #attempts :one SET #entity = :entity, #reference = :reference',
        ExpressionAttributeNames: { '#attempts': 'attempts', '#entity': 'entity', '#reference': 'reference' },
        ExpressionAttributeValues: { ':one': 1, ':entity': 'simulatedChainAttempts', ':reference': reference },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(result.Attributes?.attempts);
  }
}

const chainSenderPort = providerPort<ChainSender>('chain', () => new SimulatedChain());
const gasOraclePort = providerPort<GasOracle>('gasOracle', () => new SimulatedGasOracle());

/** Wiring (or a test, at this port only) installs another sender; `undefined` goes back to the environment's default. */
export const useChainSender = chainSenderPort.use;

export const useGasOracle = gasOraclePort.use;

export const chainSender = chainSenderPort.get;

export const gasOracle = gasOraclePort.get;
