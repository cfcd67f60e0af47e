import { describe, expect, it } from 'vitest';
import { houseAccountsVariable, houseAccountsFor, isValidIban, simulatedHouseAccounts } from '#domain/houseAccounts.ts';

const parse = (value: unknown) => houseAccountsVariable().safeParse(typeof value === 'string' ? value : JSON.stringify(value));

describe('HOUSE_ACCOUNTS', () => {
  it('keeps only the fields held: blank values are not held, IBAN and BIC in electronic form', () => {
    const result = parse([
      { currency: 'USD', accountName: ' Payments Inc ', accountNumber: '123456789', bankName: '', bic: '', bankAddress: '   ' },
      { currency: 'EUR', accountName: 'Payments Inc', iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeff' },
    ]);
    expect(result.error?.issues ?? []).toEqual([]);
    expect(result.data).toEqual([
      { currency: 'USD', accountName: 'Payments Inc', accountNumber: '123456789' },
      { currency: 'EUR', accountName: 'Payments Inc', iban: 'DE89370400440532013000', bic: 'COBADEFF' },
    ]);
    for (const account of result.data!) expect(Object.values(account)).not.toContain(undefined);
  });

  it.each([
    ['not JSON', '{'],
    ['not an array', { currency: 'USD' }],
    ['a currency the contract does not list', [{ currency: 'GBP', accountName: 'P', accountNumber: '1' }]],
    ['a currency twice', [{ currency: 'USD', accountName: 'P', accountNumber: '1' }, { currency: 'USD', accountName: 'Q', accountNumber: '2' }]],
    ['nowhere to send money', [{ currency: 'USD', accountName: 'P', bankName: 'Bank' }]],
    ['no account name', [{ currency: 'USD', accountName: ' ', accountNumber: '1' }]],
    ['an IBAN whose check digits fail', [{ currency: 'EUR', accountName: 'P', iban: 'DE88370400440532013000' }]],
    ['a malformed BIC', [{ currency: 'EUR', accountName: 'P', iban: 'DE89370400440532013000', bic: 'COBA' }]],
    ['an unknown field (a typo)', [{ currency: 'EUR', accountName: 'P', ibn: 'DE89370400440532013000', iban: 'DE89370400440532013000' }]],
  ])('refuses %s', (_label, value) => {
    expect(parse(value).success).toBe(false);
  });

  it('none configured: the simulated accounts on simulated only; an empty list stays empty', () => {
    expect(houseAccountsFor('simulated', undefined)).toBe(simulatedHouseAccounts);
    expect(houseAccountsFor('sandbox', undefined)).toEqual([]);
    expect(houseAccountsFor('production', undefined)).toEqual([]);
    expect(houseAccountsFor('simulated', [])).toEqual([]);
  });

  it('the simulated accounts are well-formed and pass the same checks as configured ones', () => {
    expect(parse(simulatedHouseAccounts).data).toEqual(simulatedHouseAccounts);
    for (const account of simulatedHouseAccounts) if (account.iban) expect(isValidIban(account.iban)).toBe(true);
  });

  it('holds each field to its length, and a BIC to 8 or 11 characters of ISO 9362', () => {
    const account = (fields: Record<string, string>) => parse([{ currency: 'USD', accountName: 'P', accountNumber: '1', ...fields }]);
    const at = { accountName: 140, bankName: 140, accountNumber: 40, bankAddress: 280 };
    for (const [field, max] of Object.entries(at)) {
      expect(account({ [field]: 'a'.repeat(max) }).success, `${field} ${max}`).toBe(true);
      expect(account({ [field]: 'a'.repeat(max + 1) }).success, `${field} ${max + 1}`).toBe(false);
    }
    expect(account({ currency: 'EUR', iban: 'LC55HEMM000100010012001200023015' }).data?.[0]?.iban).toBe('LC55HEMM000100010012001200023015');
    expect(account({ iban: 'LC55 HEMM 0001 0001 0012 0012 0002 3015   ' }).success).toBe(true);
    expect(account({ iban: 'LC55 HEMM 0001 0001 0012 0012 0002 3015      ' }).success).toBe(false);
    for (const bic of ['COBADEFF', 'COBADEFFXXX', 'cobadeff100']) expect(account({ bic }).success, bic).toBe(true);
    for (const bic of ['COBADEF', 'COBADEFFXX', '1OBADEFF', 'COBADEFF-XX', 'COBADE_F']) expect(account({ bic }).success, bic).toBe(false);
    expect(account({ bic: ' cobadeff ' }).data?.[0]?.bic).toBe('COBADEFF');
  });

  it('names the field at fault, and says the variable is not JSON', () => {
    const paths = (value: unknown) => parse(value).error?.issues.map((issue) => issue.path.join('.'));
    expect(paths([{ currency: 'EUR', accountName: 'P', iban: 'DE88370400440532013000' }])).toEqual(['0.iban']);
    expect(paths([{ currency: 'EUR', accountName: 'P', iban: 'DE89370400440532013000', bic: 'COBA' }])).toEqual(['0.bic']);
    expect(parse('{').error?.issues.map((issue) => issue.code)).toEqual(['custom']);
  });
});
