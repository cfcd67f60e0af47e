/**
 * The blockchain networks the service names, and what an address on each looks like. Pure: the
 * custody simulator derives addresses in these formats, the crypto deposit endpoint checks every
 * address it publishes against them (docs/decisions/053-deposit-instructions.md).
 *
 *   evm     `0x` + 40 hex: one key pair holds the same address on every EVM network
 *   solana  base58 of a 32-byte public key (32 to 44 characters)
 *   tron    base58check of 0x41 + 20 bytes: 34 characters starting with `T`
 */
import { createHash } from 'node:crypto';

export type AddressFormat = 'evm' | 'solana' | 'tron';

/** Every network the service knows, by its address format. A network not here has no known address format. */
export const networkAddressFormats: Readonly<Record<string, AddressFormat>> = {
  base: 'evm',
  ethereum: 'evm',
  polygon: 'evm',
  arbitrum: 'evm',
  optimism: 'evm',
  avalanche: 'evm',
  solana: 'solana',
  tron: 'tron',
};

export function addressFormatOf(network: string): AddressFormat | undefined {
  return Object.hasOwn(networkAddressFormats, network) ? networkAddressFormats[network] : undefined;
}

// ---- base58 (the Bitcoin alphabet, as Solana and Tron use it) ------------------------------

const base58Alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const base58Values = new Map([...base58Alphabet].map((character, index) => [character, BigInt(index)]));

export function base58Encode(bytes: Uint8Array): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let text = '';
  while (value > 0n) {
    text = base58Alphabet[Number(value % 58n)]! + text;
    value /= 58n;
  }
  // Each leading zero byte is one leading '1'.
  for (const byte of bytes) {
    if (byte !== 0) break;
    text = `1${text}`;
  }
  return text;
}

/** The bytes, or undefined when a character is outside the alphabet. */
export function base58Decode(text: string): Uint8Array | undefined {
  let value = 0n;
  for (const character of text) {
    const digit = base58Values.get(character);
    if (digit === undefined) return undefined;
    value = value * 58n + digit;
  }
  const bytes: number[] = [];
  while (value > 0n) {
    bytes.unshift(Number(value & 0xffn));
    value >>= 8n;
  }
  for (const character of text) {
    if (character !== '1') break;
    bytes.unshift(0);
  }
  return Uint8Array.from(bytes);
}

function doubleSha256(bytes: Uint8Array): Buffer {
  return createHash('sha256').update(createHash('sha256').update(bytes).digest()).digest();
}

// ---- Address formats ---------------------------------------------------------------------

/** A Tron address from the 20 bytes of its account: base58check(0x41 ‖ account). */
export function tronAddress(account: Uint8Array): string {
  if (account.length !== 20) throw new Error('a Tron account is 20 bytes');
  const payload = Uint8Array.from([0x41, ...account]);
  return base58Encode(Uint8Array.from([...payload, ...doubleSha256(payload).subarray(0, 4)]));
}

/** A Solana address from a 32-byte public key. */
export function solanaAddress(publicKey: Uint8Array): string {
  if (publicKey.length !== 32) throw new Error('a Solana public key is 32 bytes');
  return base58Encode(publicKey);
}

export function isEvmAddress(text: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(text);
}

export function isSolanaAddress(text: string): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, 32 bytes take 32 to 44 characters; the bounds spare decoding a long text (their exact values are tested)
  if (text.length < 32 || text.length > 44) return false;
  return base58Decode(text)?.length === 32;
}

export function isTronAddress(text: string): boolean {
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: equivalent, 0x41 and 24 bytes always spell 34 characters from T; a cheap refusal before decoding
  if (text.length !== 34 || !text.startsWith('T')) return false;
  const bytes = base58Decode(text);
  if (bytes?.length !== 25 || bytes[0] !== 0x41) return false;
  const checksum = doubleSha256(bytes.subarray(0, 21)).subarray(0, 4);
  return checksum.equals(bytes.subarray(21));
}

/** Whether `text` is a well-formed address of `network`; false for a network of unknown format. */
export function isAddressOn(network: string, text: string): boolean {
  switch (addressFormatOf(network)) {
    case 'evm':
      return isEvmAddress(text);
    case 'solana':
      return isSolanaAddress(text);
    case 'tron':
      return isTronAddress(text);
    default:
      return false;
  }
}
