import { describe, expect, it } from 'vitest';
import { hashApiKey, issueApiKey, parseApiKey, sameHash } from '#domain/apiKeys.ts';

const organizationId = 'org_01JDTESTTESTTESTTESTTESTTE';

describe('API keys', () => {
  it('round-trips: an issued key parses back to its organization, key id and hash', () => {
    const issued = issueApiKey('simulated', organizationId);
    expect(issued.apiKey).toMatch(/^sk_sim_/);
    expect(parseApiKey(issued.apiKey, 'simulated')).toEqual({
      organizationId,
      keyId: issued.keyId,
      hash: hashApiKey(issued.apiKey),
    });
    expect(issued.hash).toHaveLength(64);
    expect(issued.apiKey).not.toContain(issued.hash);
  });

  it('is different every time', () => {
    const keys = new Set(Array.from({ length: 50 }, () => issueApiKey('simulated', organizationId).apiKey));
    expect(keys.size).toBe(50);
  });

  it('refuses keys of another environment, altered or malformed keys', () => {
    const issued = issueApiKey('production', organizationId);
    expect(parseApiKey(issued.apiKey, 'simulated')).toBeUndefined();
    expect(parseApiKey(issued.apiKey, 'production')).toBeDefined();
    for (const bad of ['', 'sk_sim_', 'Bearer x', `${issued.apiKey}x`, issued.apiKey.slice(0, -1), 'x'.repeat(5000)]) {
      expect(parseApiKey(bad, 'production')).toBeUndefined();
    }
  });

  it('compares hashes in constant time and only equal ones match', () => {
    const hash = hashApiKey('a');
    expect(sameHash(hash, hashApiKey('a'))).toBe(true);
    expect(sameHash(hash, hashApiKey('b'))).toBe(false);
    expect(sameHash(undefined, hash)).toBe(false);
    expect(sameHash(hash.slice(1), hash)).toBe(false);
  });
});
