import { describe, expect, it } from 'vitest';
import { hashRequest } from '#domain/requestHash.ts';

describe('hashRequest', () => {
  it('is blind to key order and to fields left out', () => {
    expect(hashRequest({ a: 1, b: { c: 'x', d: [1, 2] } })).toBe(hashRequest({ b: { d: [1, 2], c: 'x' }, a: 1, e: undefined }));
  });

  it('hashes an amount by value: one bigint, however it was spelled', () => {
    expect(hashRequest({ amount: 100_000_000n })).toBe(hashRequest({ amount: BigInt('100000000') }));
    expect(hashRequest({ amount: 100_000_000n })).not.toBe(hashRequest({ amount: 100_000_001n }));
  });

  it('tells apart what differs in meaning', () => {
    expect(hashRequest({ a: 'x' })).not.toBe(hashRequest({ a: 'X' }));
    expect(hashRequest({ a: [1, 2] })).not.toBe(hashRequest({ a: [2, 1] }));
    expect(hashRequest({ a: null })).not.toBe(hashRequest({}));
  });
});
