import { describe, expect, it } from 'vitest';
import { checksumAddress, evmAddressProblem } from '#domain/evmAddress.ts';

/** EIP-55's own test vectors: each is the checksummed form of itself. */
const vectors = [
  '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
  '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
  '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
];

describe('EIP-55 checksum', () => {
  it.each(vectors)('%s checks', (address) => {
    expect(checksumAddress(address.toLowerCase())).toBe(address);
    expect(evmAddressProblem(address)).toBeUndefined();
  });

  it('accepts all-lower and all-upper addresses, which carry no checksum', () => {
    for (const address of vectors) {
      expect(evmAddressProblem(address.toLowerCase())).toBeUndefined();
      expect(evmAddressProblem(`0x${address.slice(2).toUpperCase()}`)).toBeUndefined();
    }
  });

  it('refuses a mixed-case address with one letter in the wrong case', () => {
    for (const address of vectors) {
      const index = [...address].findLastIndex((character, position) => position > 1 && /[a-fA-F]/.test(character));
      const flipped = address.slice(0, index) + (address[index] === address[index]!.toUpperCase() ? address[index]!.toLowerCase() : address[index]!.toUpperCase()) + address.slice(index + 1);
      expect(evmAddressProblem(flipped), flipped).toBe('checksum');
    }
  });

  it('refuses what is not an EVM address', () => {
    for (const text of ['', '0x', '0x1234', `0x${'g'.repeat(40)}`, `${'a'.repeat(42)}`, 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8']) {
      expect(evmAddressProblem(text), text).toBe('format');
    }
  });
});
