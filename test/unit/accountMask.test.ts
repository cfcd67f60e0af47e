import { describe, expect, it } from 'vitest';
import { maskAccount } from '#domain/accountMask.ts';

describe('an account as the compliance record keeps it', () => {
  it('shows the last four characters of an account of 8 or more, stars for the rest', () => {
    expect(maskAccount('12345678')).toBe('****5678');
    expect(maskAccount('DE89370400440532013000')).toBe('******************3000');
  });

  it('shows nothing of a shorter one, and never fewer than four stars', () => {
    expect(maskAccount('1234567')).toBe('*******');
    expect(maskAccount('12')).toBe('****');
    expect(maskAccount('')).toBe('****');
  });
});
