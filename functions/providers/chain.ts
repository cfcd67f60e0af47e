import { providerPort } from '#platform/providerPorts.ts';

/**
 * Two ports for USDC on chain (withdrawals, docs/decisions/060):
 *
 * - the gas oracle: what sending USDC on a network costs now, in USDC minor units;
 * - the chain sender: the custodian's send of USDC from the home wallet to an address, crossing
 *   to the destination network first when it is not the home network.
 *
 * `simulated` uses their simulators (functions/simulators/chain.ts); sandbox and production need real adapters, and until one
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

const chainSenderPort = providerPort<ChainSender>('chain');
const gasOraclePort = providerPort<GasOracle>('gasOracle');

/** The simulated stage's wiring registers the simulators here (functions/simulators/install.ts). */
export const simulateChainSender = chainSenderPort.simulateWith;

export const simulateGasOracle = gasOraclePort.simulateWith;

/** Wiring (or a test, at this port only) installs another sender; `undefined` goes back to the environment's default. */
export const useChainSender = chainSenderPort.use;

export const useGasOracle = gasOraclePort.use;

export const chainSender = chainSenderPort.get;

export const gasOracle = gasOraclePort.get;
