import { keccak_256 } from '@noble/hashes/sha3.js';
import { isEvmAddress } from '#domain/networks.ts';

/**
 * EIP-55: a mixed-case EVM address carries a checksum in the case of its letters (hex digit i is
 * upper case when nibble i of keccak-256(lower-case address) is 8 or more). A withdrawal goes to
 * an address it cannot take back from, so a mixed-case address whose case does not check is
 * refused as a typo; all-lower and all-upper addresses carry no checksum and are accepted as is.
 */
export function checksumAddress(address: string): string {
  if (!isEvmAddress(address)) throw new Error('not an EVM address');
  const hex = address.slice(2).toLowerCase();
  const digest = Buffer.from(keccak_256(new TextEncoder().encode(hex))).toString('hex');
  let text = '0x';
  for (let index = 0; index < hex.length; index += 1) {
    const character = hex[index]!;
    text += parseInt(digest[index]!, 16) >= 8 ? character.toUpperCase() : character;
  }
  return text;
}

export type EvmAddressProblem = 'format' | 'checksum';

/** Undefined when the address may be sent to; otherwise why not. */
export function evmAddressProblem(address: string): EvmAddressProblem | undefined {
  if (!isEvmAddress(address)) return 'format';
  const body = address.slice(2);
  if (body === body.toLowerCase() || body === body.toUpperCase()) return undefined;
  return checksumAddress(address) === address ? undefined : 'checksum';
}
