import { describe, expect, it } from 'vitest';
import { ibanChecksumValid } from '#domain/iban.ts';
import { pixMaximum, pixMinimum } from '#domain/pixLimits.ts';

describe('IBAN check digits (ISO 7064 MOD 97-10)', () => {
  it('accepts the registry\'s examples', () => {
    for (const iban of ['DE89370400440532013000', 'GB82WEST12345698765432', 'FR1420041010050500013M02606', 'NO9386011117947', 'MT84MALT011000012345MTLCAST001S']) {
      expect(ibanChecksumValid(iban), iban).toBe(true);
    }
  });

  it('refuses a changed digit or letter, and anything not in electronic form', () => {
    for (const iban of [
      'DE89370400440532013001', 'DE88370400440532013000', 'GB82WEST12345698765433', 'GB82WEST12345698765432X', 'FR1420041010050500013M02607',
      'de89370400440532013000', 'DE89 3704 0044 0532 0130 00', 'D189370400440532013000', 'DE8937040044', `DE89${'0'.repeat(31)}`, ' DE89370400440532013000',
    ]) {
      expect(ibanChecksumValid(iban), iban).toBe(false);
    }
    // Lengths at the pattern's bounds: 15 and 34 characters, with valid check digits.
    expect(ibanChecksumValid('NO9386011117947')).toBe(true);
    expect(ibanChecksumValid('LC55HEMM000100010012001200023015')).toBe(true);
  });

  it('refuses what is not an IBAN\'s shape even when its digits check: 15 to 34 characters, two letters, two digits', () => {
    // Each of these passes the MOD 97-10 check.
    for (const text of ['GB320123456789', 'GB901111111111111111111111111111111', 'xDE8937040044053201352', 'DE8X370400440532013067']) {
      expect(ibanChecksumValid(text), text).toBe(false);
    }
  });
});

describe('PIX limits', () => {
  it('are 10.00 to 15,000.00 BRL, in centavos', () => {
    expect([pixMinimum, pixMaximum]).toEqual([1_000n, 1_500_000n]);
  });
});
