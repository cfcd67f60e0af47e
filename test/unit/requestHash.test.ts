import { createHash } from 'node:crypto';
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

  // Idempotency records keep this hash across deploys: a retry after a release must hash as the first
  // request did, so the canonical form is pinned (sorted keys, no spaces, amounts as decimal strings).
  it('hashes the canonical JSON of the meaning, which a release must not change', () => {
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    const meaning = { to: { zeta: 'Z', alpha: [3n, 'x', true, false, null, 1.5], mid: undefined }, amount: -12n, b: {}, a: [] };
    expect(hashRequest(meaning)).toBe(sha256('{"a":[],"amount":"-12","b":{},"to":{"alpha":["3","x",true,false,null,1.5],"zeta":"Z"}}'));
    expect(hashRequest('x')).toBe(sha256('"x"'));
    expect(hashRequest(7n)).toBe(sha256('"7"'));
    expect(hashRequest(null)).toBe(sha256('null'));
    expect(hashRequest({ B: 1, a: 2, A: 3, b: 4 })).toBe(sha256('{"A":3,"B":1,"a":2,"b":4}'));
    expect(hashRequest({ d: 1, c: 2, b: 3, a: 4 })).toBe(sha256('{"a":4,"b":3,"c":2,"d":1}'));
    expect(hashRequest({ a: 1, b: 2, c: 3, d: 4 })).toBe(sha256('{"a":1,"b":2,"c":3,"d":4}'));
  });
});
