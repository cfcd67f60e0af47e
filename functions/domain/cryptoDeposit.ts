/**
 * Where an organization can send USDC on chain (GET /treasury/crypto-deposit), before any
 * address is known. Pure: the caller brings the home wallet's network (docs/decisions/053).
 *
 * The listed networks are the home network and every network a crossing from it is priced for
 * (`crossingFees`, the same table quotes charge from): a deposit on one of them is moved home
 * across that very crossing, so its fee is the same figure, and a network with no priced
 * crossing cannot be moved home and is not listed. One concept, one place.
 */
import { crossingFees } from '#domain/pricing.ts';
import { addressFormatOf, type AddressFormat } from '#domain/networks.ts';

/**
 * The deposit size the fee estimates are priced for (`quotedAt`): 1,000 USDC. Today's crossing
 * fees are flat, so any size gets the same fee; the size is stated so a size-dependent estimate
 * can replace them without changing what the figure means.
 */
export const cryptoDepositQuoteSize = 1_000_000_000n;

export interface DepositNetwork {
  network: string;
  home: boolean;
  format: AddressFormat;
  /** USDC minor units the move home costs (0 on the home network: credited as is). */
  fee: bigint;
  /** The address is the home wallet's own (the home network, and every network of its format). */
  sharesHomeAddress: boolean;
}

/** Home first, then the others in the crossing table's order. Undefined when the home network itself has no known address format. */
export function depositNetworksOf(homeNetwork: string): DepositNetwork[] | undefined {
  const homeFormat = addressFormatOf(homeNetwork);
  if (!homeFormat) return undefined;
  const networks: DepositNetwork[] = [{ network: homeNetwork, home: true, format: homeFormat, fee: 0n, sharesHomeAddress: true }];
  for (const [network, fee] of Object.entries(crossingFees[homeNetwork] ?? {})) {
    const format = addressFormatOf(network);
    // A network whose addresses the service cannot check is not offered: no address is better than a wrong one.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent with today's table, whose crossings are all to other networks of known formats; kept for the next row
    if (!format || network === homeNetwork) continue;
    // One EVM key pair is the same address on every EVM network; other formats have one address per network.
    // Stryker disable next-line ConditionalExpression: equivalent with today's table, whose only home network with crossings (base) is EVM
    networks.push({ network, home: false, format, fee, sharesHomeAddress: format === 'evm' && homeFormat === 'evm' });
  }
  return networks;
}
