import { describe, expect, it } from 'vitest';
import { brCodeFields, brCodeValid, buildBrCode, crc16 } from '#domain/brCode.ts';

/** The BR Code (EMV MPM) the simulated PIX provider hands out: the shape and check a payer's app verifies. */
describe('crc16', () => {
  it('is CRC-16/CCITT-FALSE (the catalogue check value of "123456789" is 29B1)', () => {
    expect(crc16('123456789')).toBe('29B1');
    expect(crc16('')).toBe('FFFF');
  });
});

describe('buildBrCode', () => {
  const input = { location: 'pix.simulated.invalid/qr/v2/abc', amount: 123_45n, merchantName: 'Cross-Border Payments Ltda', merchantCity: 'São Paulo', txid: 'ABC123' };

  it('writes the EMV fields in order, closed by a CRC over everything before it', () => {
    const code = buildBrCode(input);
    expect(code.startsWith('000201010212')).toBe(true);
    expect(code).toMatch(/6304[0-9A-F]{4}$/);
    expect(brCodeValid(code)).toBe(true);
    const fields = brCodeFields(code);
    expect([...fields.keys()]).toEqual(['00', '01', '26', '52', '53', '54', '58', '59', '60', '62', '63']);
    expect(fields.get('26')).toBe('0014br.gov.bcb.pix2531pix.simulated.invalid/qr/v2/abc');
    expect(fields.get('54')).toBe('123.45');
    expect(fields.get('59')).toBe('Cross-Border Payments Ltd'); // cut to the EMV limit of 25
    expect(fields.get('60')).toBe('Sao Paulo'); // accents dropped: payer apps show ASCII
    expect(fields.get('62')).toBe('0506ABC123');
  });

  it('is refused by the check when any character changes', () => {
    const code = buildBrCode(input);
    const tampered = code.replace('123.45', '923.45');
    expect(brCodeValid(tampered)).toBe(false);
    expect(brCodeValid(code.slice(0, -1))).toBe(false);
  });

  it('refuses what cannot be a dynamic code', () => {
    expect(() => buildBrCode({ ...input, amount: 0n })).toThrow(/positive/);
    expect(() => buildBrCode({ ...input, txid: 'has space' })).toThrow(/txid/);
    expect(() => buildBrCode({ ...input, txid: 'A'.repeat(26) })).toThrow(/txid/);
    expect(() => buildBrCode({ ...input, location: 'x'.repeat(120) })).toThrow(/longer than 99/);
  });

  it('is the whole EMV payload: format 01, dynamic 12, category 0000, BRL 986, country BR, the CRC last', () => {
    expect(buildBrCode(input)).toBe(
      '000201' + '010212' + '26530014br.gov.bcb.pix2531pix.simulated.invalid/qr/v2/abc' + '52040000' + '5303986' + '5406123.45' + '5802BR'
      + '5925Cross-Border Payments Ltd' + '6009Sao Paulo' + '62100506ABC123' + '6304BF3B',
    );
    // The smallest amount, a txid of 25, a name trimmed and unaccented, a city cut to 15.
    const edge = buildBrCode({ location: 'x'.repeat(50), amount: 1n, merchantName: '  Açaí  ', merchantCity: 'Rio de Janeiro do Sul', txid: 'A'.repeat(25) });
    expect(brCodeFields(edge).get('54')).toBe('0.01');
    expect(brCodeFields(edge).get('59')).toBe('Acai');
    expect(brCodeFields(edge).get('60')).toBe('Rio de Janeiro ');
    expect(edge.endsWith('630463F3')).toBe(true);
    expect(() => buildBrCode({ ...input, location: 'x'.repeat(77) })).not.toThrow();
    expect(() => buildBrCode({ ...input, location: 'pix.example/é' })).toThrow(/printable ASCII/);
    expect(() => buildBrCode({ ...input, location: 'pix.example/\u007f' })).toThrow(/printable ASCII/);
    expect(() => buildBrCode({ ...input, txid: '' })).toThrow(/txid/);
    expect(() => buildBrCode({ ...input, txid: 'A'.repeat(24) + '-' })).toThrow(/txid/);
    expect(() => buildBrCode({ ...input, amount: -1n })).toThrow(/positive/);
  });

  it('is valid only whole: from field 00 to an upper-case CRC', () => {
    const code = buildBrCode(input);
    expect(brCodeValid(code.toLowerCase())).toBe(false);
    expect(brCodeValid(`x${code}`)).toBe(false);
    expect(brCodeValid(`${code}0`)).toBe(false);
    expect(brCodeValid(code.replace(/6304[0-9A-F]{4}$/, '6304bf3b'))).toBe(false);
  });

  it('reads fields only from a TLV string', () => {
    expect(brCodeFields('')).toEqual(new Map());
    expect(brCodeFields('0002AB5303986')).toEqual(new Map([['00', 'AB'], ['53', '986']]));
    expect(() => brCodeFields('0x02AB')).toThrow();
    expect(() => brCodeFields('00xxAB')).toThrow();
    expect(() => brCodeFields('0')).toThrow();
  });
});
