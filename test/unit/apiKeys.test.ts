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

  it('names its environment, its organization and its key id in the clear, and shows its first 48 characters as its prefix', () => {
    const tags = { simulated: 'sim', sandbox: 'sbx', production: 'live' } as const;
    for (const [environment, tag] of Object.entries(tags) as [keyof typeof tags, string][]) {
      const issued = issueApiKey(environment, organizationId);
      expect(issued.apiKey).toMatch(new RegExp(`^sk_${tag}_01JDTESTTESTTESTTESTTESTTE_[0-9a-z]{12}_[0-9A-Za-z]{43}$`));
      expect(issued.apiKey.split('_')[3]).toBe(issued.keyId);
      expect(issued.prefix).toBe(issued.apiKey.slice(0, 48));
      expect(issued.prefix).toHaveLength(48);
      expect(issued.organizationId).toBe(organizationId);
    }
  });

  it('is stored as the SHA-256 of the whole key', () => {
    expect(hashApiKey('a')).toBe('ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb');
    const issued = issueApiKey('sandbox', organizationId);
    expect(issued.hash).toBe(hashApiKey(issued.apiKey));
  });

  it('draws its key id and secret from their whole alphabets', () => {
    const issued = Array.from({ length: 50 }, () => issueApiKey('simulated', organizationId));
    expect(new Set(issued.map((key) => key.keyId)).size).toBe(50);
    const secretCharacters = new Set(issued.flatMap((key) => [...key.apiKey.slice(-43)]));
    const keyIdCharacters = new Set(issued.flatMap((key) => [...key.keyId]));
    // 2,150 random base62 characters and 600 base36 ones: every character shows up, bar a rare few.
    expect(secretCharacters.size).toBeGreaterThan(55);
    expect(keyIdCharacters.size).toBeGreaterThan(30);
  });

  it('is issued only for an organization id org_<ULID>', () => {
    for (const id of ['xorg_01JDTESTTESTTESTTESTTESTTE', 'org_01JDTESTTESTTESTTESTTESTT', 'org_01JDTESTTESTTESTTESTTESTTEX', 'org_01JDTESTTESTTESTTESTTESTTI']) {
      expect(() => issueApiKey('simulated', id), id).toThrow();
    }
  });

  it('does not match a hash of another type or of the same length but other content', () => {
    const hash = hashApiKey('a');
    expect(sameHash(42, hash)).toBe(false);
    expect(sameHash(hashApiKey('b'), hash)).toBe(false);
  });
});
