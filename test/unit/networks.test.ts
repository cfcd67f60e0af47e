import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressFormatOf, base58Decode, base58Encode, isAddressOn, networkAddressFormats, isEvmAddress, isSolanaAddress, isTronAddress, solanaAddress, tronAddress } from '#domain/networks.ts';
import { cryptoDepositQuoteSize, depositNetworksOf } from '#domain/cryptoDeposit.ts';
import { crossingFees } from '#domain/pricing.ts';
import type { CustodyWallet } from '#providers/custody.ts';
import { SimulatedCustody } from '#simulators/custody.ts';

describe('base58 and the address formats', () => {
  it('base58 round-trips any bytes, leading zeros included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        expect(base58Decode(base58Encode(bytes))).toEqual(bytes);
      }),
    );
    expect(base58Decode('0OIl')).toBeUndefined();
  });

  it('matches addresses of the real networks', () => {
    // Tron's USDT contract: 41a614f8... in hex.
    expect(tronAddress(Buffer.from('a614f803b6fd780986a42c78ec9c7f77e6ded13c', 'hex'))).toBe('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t');
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true);
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(false);
    // Solana's system program (32 zero bytes) and the USDC mint.
    expect(solanaAddress(new Uint8Array(32))).toBe('1'.repeat(32));
    expect(isSolanaAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    // No checksum on Solana: only the alphabet and the 32 bytes can be checked.
    expect(isSolanaAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt10')).toBe(false);
    expect(isSolanaAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4')).toBe(false);
    expect(isEvmAddress(`0x${'aB'.repeat(20)}`)).toBe(true);
    expect(isEvmAddress(`0x${'a'.repeat(39)}`)).toBe(false);
    expect(isAddressOn('base', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(false);
    expect(isAddressOn('nowhere', `0x${'a'.repeat(40)}`)).toBe(false);
  });

  it('every derived Tron and Solana address is well-formed', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 20, maxLength: 20 }), fc.uint8Array({ minLength: 32, maxLength: 32 }), (account, key) => {
        expect(isTronAddress(tronAddress(account))).toBe(true);
        expect(isSolanaAddress(solanaAddress(key))).toBe(true);
      }),
    );
  });
});

describe('the networks and their address formats', () => {
  it('are the ones the service names, each with its format, and no other', () => {
    expect(networkAddressFormats).toEqual({
      base: 'evm', ethereum: 'evm', polygon: 'evm', arbitrum: 'evm', optimism: 'evm', avalanche: 'evm', solana: 'solana', tron: 'tron',
    });
    expect(addressFormatOf('tron')).toBe('tron');
    for (const name of ['toString', 'constructor', '__proto__', 'Base', '']) expect(addressFormatOf(name), name).toBeUndefined();
  });

  it('base58 is Bitcoin\'s: its known vectors, one 1 per leading zero byte', () => {
    expect(base58Encode(Buffer.from('Hello World!'))).toBe('2NEpo7TZRRrLZSi2U');
    expect(base58Decode('2NEpo7TZRRrLZSi2U')).toEqual(Uint8Array.from(Buffer.from('Hello World!')));
    expect(base58Encode(Uint8Array.from([0, 0, 1]))).toBe('112');
    expect(base58Decode('112')).toEqual(Uint8Array.from([0, 0, 1]));
    expect(base58Encode(Uint8Array.from([0, 0]))).toBe('11');
    expect(base58Encode(Uint8Array.from([57]))).toBe('z');
    expect(base58Encode(Uint8Array.from([58]))).toBe('21');
    expect(base58Encode(new Uint8Array())).toBe('');
    expect(base58Decode('')).toEqual(new Uint8Array());
  });

  it('derives addresses from keys of the right size only', () => {
    expect(() => tronAddress(new Uint8Array(19))).toThrow();
    expect(() => tronAddress(new Uint8Array(21))).toThrow();
    expect(() => solanaAddress(new Uint8Array(31))).toThrow();
    expect(() => solanaAddress(new Uint8Array(33))).toThrow();
  });

  it('a Solana address is 32 to 44 characters naming 32 bytes', () => {
    expect(isSolanaAddress('1'.repeat(32))).toBe(true);
    expect(isSolanaAddress('1'.repeat(33))).toBe(false);
    expect(isSolanaAddress('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    expect(isSolanaAddress(`1${'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'}`)).toBe(false);
  });

  it('a Tron address is base58check of 0x41 and 20 bytes', () => {
    // Both have a valid checksum: the first over 0x41, the second over 0x42.
    expect(isTronAddress('TAcN9gFvXZAxsWQQzWWbydBmscBHnEi5nZ')).toBe(true);
    expect(isTronAddress('TZwy8nZDEjdqgwYW1vqvTkTZW7SEYfoe8d')).toBe(false);
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6')).toBe(false);
    expect(isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60')).toBe(false);
  });

  it('checks an address against its network\'s format', () => {
    expect(isAddressOn('ethereum', `0x${'a'.repeat(40)}`)).toBe(true);
    expect(isAddressOn('solana', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(true);
    expect(isAddressOn('solana', `0x${'a'.repeat(40)}`)).toBe(false);
    expect(isAddressOn('tron', 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(true);
    expect(isAddressOn('tron', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v')).toBe(false);
    for (const text of [`x0x${'a'.repeat(40)}`, `0x${'a'.repeat(40)}0`, `0X${'a'.repeat(40)}`, `0x${'g'.repeat(40)}`]) expect(isEvmAddress(text), text).toBe(false);
  });
});

describe('the crypto deposit networks', () => {
  it('are home first (fee 0), then every crossing priced from home with its fee; EVM ones share the home address', () => {
    const networks = depositNetworksOf('base')!;
    expect(networks[0]).toEqual({ network: 'base', home: true, format: 'evm', fee: 0n, sharesHomeAddress: true });
    expect(networks.slice(1).map((entry) => [entry.network, entry.fee])).toEqual(Object.entries(crossingFees.base!));
    expect(networks.filter((entry) => entry.home)).toHaveLength(1);
    expect(Object.fromEntries(networks.map((entry) => [entry.network, entry.sharesHomeAddress]))).toEqual({
      base: true, ethereum: true, polygon: true, solana: false, tron: false,
    });
    expect(depositNetworksOf('nowhere')).toBeUndefined();
    // A home network with no priced crossing lists itself only.
    expect(depositNetworksOf('arbitrum')!.map((entry) => entry.network)).toEqual(['arbitrum']);
    expect(cryptoDepositQuoteSize).toBe(1_000_000_000n);
  });

  it('the simulated custodian gives each wallet a stable address per network, the wallet’s own on EVM networks', async () => {
    const custody = new SimulatedCustody();
    const opened = await custody.openWallet({ organizationId: 'org_x', walletId: 'wal_1', label: null });
    const wallet: CustodyWallet = { organizationId: 'org_x', walletId: 'wal_1', externalId: opened.externalId, chain: 'base', currencies: ['USDC'], home: true };
    const other: CustodyWallet = { ...wallet, walletId: 'wal_2' };
    for (const network of ['base', 'ethereum', 'polygon', 'solana', 'tron']) {
      const address = await custody.depositAddress(wallet, network);
      expect(isAddressOn(network, address), `${network} ${address}`).toBe(true);
      expect(await custody.depositAddress(wallet, network)).toBe(address);
      expect(await custody.depositAddress(other, network)).not.toBe(address);
    }
    expect(await custody.depositAddress(wallet, 'polygon')).toBe(opened.address);
    await expect(custody.depositAddress(wallet, 'nowhere')).rejects.toThrow();
  });
});
