import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { base58Decode, base58Encode, isAddressOn, isEvmAddress, isSolanaAddress, isTronAddress, solanaAddress, tronAddress } from '#domain/networks.ts';
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
