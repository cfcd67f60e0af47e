import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  beneficiaryProblems,
  clabeValid,
  corridorCatalogue,
  corridorRequirements,
  corridors,
  findCorridor,
  ibanValid,
  nubanValid,
  sampleBeneficiary,
  type CorridorDefinition,
} from '#domain/corridors.ts';
import type { Beneficiary } from '#schemas/transactions.ts';

function corridorTo(destinationCountry: string): CorridorDefinition {
  const found = corridorCatalogue.find((c) => c.destinationCountry === destinationCountry);
  if (!found) throw new Error(`no corridor to ${destinationCountry}`);
  return found;
}

function problemsWith(country: string, change: Partial<Beneficiary>) {
  const corridor = corridorTo(country);
  return beneficiaryProblems(corridor, { ...sampleBeneficiary(corridor), ...change });
}

describe('corridor catalogue', () => {
  it('covers the listed pairs from USDC, once each', () => {
    const pairs = corridorCatalogue.map((c) => `${c.from}>${c.to}/${c.destinationCountry}`).sort();
    expect(pairs).toEqual(
      ['MXN/MX', 'BRL/BR', 'COP/CO', 'NGN/NG', 'PHP/PH', 'INR/IN', 'EUR/DE', 'EUR/ES', 'GBP/GB', 'VND/VN'].map((p) => `USDC>${p}`).sort(),
    );
    expect(corridors).toHaveLength(corridorCatalogue.length);
    expect(findCorridor('USDC', 'EUR', 'ES')?.destinationCountry).toBe('ES');
    expect(findCorridor('USDC', 'EUR', 'FR')).toBeUndefined();
  });

  it.each(corridorCatalogue.map((c) => [c.destinationCountry, c] as const))('%s: routes agree with the published flags', (_, corridor) => {
    expect(corridor.routes.length).toBeGreaterThanOrEqual(1);
    expect(corridor.routes.some((r) => r.kind === 'orchestrator')).toBe(true);
    expect(corridor.ownedRail).toBe(corridor.routes.some((r) => r.kind === 'owned'));
    expect(corridor.instant).toBe(corridor.routes.some((r) => r.instant));
    for (const route of corridor.routes) {
      expect(route.networks.length).toBeGreaterThan(0);
      expect(route.feeFixed).toBeGreaterThanOrEqual(0n);
      expect(route.quoteValiditySeconds).toBeGreaterThanOrEqual(60);
      if (route.kind === 'owned') {
        expect(route.marginBps).toBeGreaterThanOrEqual(35);
        expect(route.marginBps).toBeLessThanOrEqual(80);
      } else {
        expect(route.marginBps).toBeUndefined();
      }
    }
    // Labels are unique within a corridor: the label alone names the route on a payment.
    expect(new Set(corridor.routes.map((r) => r.provider)).size).toBe(corridor.routes.length);
  });

  it('has owned routes in MX, BR, NG and PH, and instant rails where the rail is instant', () => {
    expect(corridorCatalogue.filter((c) => c.ownedRail).map((c) => c.destinationCountry).sort()).toEqual(['BR', 'MX', 'NG', 'PH']);
    for (const country of ['MX', 'BR', 'IN', 'DE', 'ES', 'GB']) expect(corridorTo(country).instant).toBe(true);
    for (const country of ['CO', 'VN']) expect(corridorTo(country).instant).toBe(false);
  });

  it('has corridors a base home wallet can only reach by a crossing', () => {
    const crossingOnly = corridorCatalogue.filter((c) => c.routes.every((r) => !r.networks.includes('base'))).map((c) => c.destinationCountry);
    expect(crossingOnly.sort()).toEqual(['CO', 'VN']);
    expect(corridorTo('CO').routes.flatMap((r) => r.networks)).toContain('solana');
  });
});

describe('beneficiary requirements', () => {
  it.each(corridorCatalogue.map((c) => [c.destinationCountry, c] as const))('%s: the sample beneficiary passes', (_, corridor) => {
    expect(beneficiaryProblems(corridor, sampleBeneficiary(corridor))).toEqual({ missing: [], invalid: [] });
  });

  it('answers `beneficiary` missing when there is none', () => {
    expect(beneficiaryProblems(corridorTo('MX'), undefined)).toEqual({ missing: ['beneficiary'], invalid: [] });
  });

  it('lists each corridor its requirements', () => {
    expect(corridorRequirements(corridorTo('MX'))).toEqual(['name', 'account']);
    expect(corridorRequirements(corridorTo('DE'))).toEqual(['name', 'account']);
    expect(corridorRequirements(corridorTo('BR'))).toEqual(['name', 'account', 'bankCode']);
    expect(corridorRequirements(corridorTo('IN'))).toEqual(['name', 'account', 'bankCode']);
    expect(corridorRequirements(corridorTo('PH'))).toEqual(['name', 'account', 'bankCode', 'addressLine', 'city']);
    expect(corridorRequirements(corridorTo('VN'))).toEqual(['name', 'account', 'bankCode', 'addressLine', 'city', 'phone']);
  });

  const removals = corridorCatalogue.flatMap((corridor) => corridorRequirements(corridor).map((field) => [corridor.destinationCountry, field, corridor] as const));
  it.each(removals)('%s: without %s it is missing', (_, field, corridor) => {
    const beneficiary: Record<string, unknown> = { ...sampleBeneficiary(corridor) };
    delete beneficiary[field];
    const problems = beneficiaryProblems(corridor, beneficiary as Beneficiary);
    expect(problems.missing).toEqual([field]);
    expect(problems.invalid).toEqual([]);
  });

  it('takes a blank field as missing', () => {
    expect(problemsWith('PH', { city: '  ' }).missing).toEqual(['city']);
  });

  it('lets a BIC of the country stand in for the bank code where the rail allows it', () => {
    for (const [country, bic] of [['PH', 'BNORPHMM'], ['VN', 'BFTVVNVX']] as const) {
      const corridor = corridorTo(country);
      const { bankCode: _, ...rest } = sampleBeneficiary(corridor);
      expect(beneficiaryProblems(corridor, { ...rest, bic })).toEqual({ missing: [], invalid: [] });
      expect(beneficiaryProblems(corridor, { ...rest, bic: 'BNORUS33' }).invalid.map((p) => p.path)).toEqual([['beneficiary', 'bic']]);
    }
    // Not where it does not: an Indian payout needs the IFSC.
    const india = corridorTo('IN');
    const { bankCode: _, ...rest } = sampleBeneficiary(india);
    expect(beneficiaryProblems(india, { ...rest, bic: 'HDFCINBBXXX' }).missing).toEqual(['bankCode']);
  });

  it('still checks the other fields when the account is missing', () => {
    const corridor = corridorTo('IN');
    const { account: _, ...rest } = sampleBeneficiary(corridor);
    const problems = beneficiaryProblems(corridor, { ...rest, bankCode: 'hdfc0000123' } as Beneficiary);
    expect(problems.missing).toEqual(['account']);
    expect(problems.invalid.map((p) => p.path)).toEqual([['beneficiary', 'bankCode']]);
  });

  const malformed: [string, Partial<Beneficiary>, string[]][] = [
    ['MX', { account: '032180000118359718' }, ['beneficiary', 'account']], // check digit off by one
    ['MX', { account: '03218000011835971' }, ['beneficiary', 'account']], // 17 digits
    ['MX', { account: 'DE89370400440532013000' }, ['beneficiary', 'account']],
    ['BR', { bankCode: '0341' }, ['beneficiary', 'bankCode']],
    ['BR', { account: 'not a pix key' }, ['beneficiary', 'account']],
    ['CO', { bankCode: '7' }, ['beneficiary', 'bankCode']],
    ['NG', { account: '0123456786' }, ['beneficiary', 'account']], // NUBAN check digit
    ['NG', { account: '123456785' }, ['beneficiary', 'account']],
    ['NG', { bankCode: '58' }, ['beneficiary', 'bankCode']],
    ['PH', { account: '12-34' }, ['beneficiary', 'account']],
    ['IN', { bankCode: 'HDFC1000123' }, ['beneficiary', 'bankCode']], // fifth character must be 0
    ['IN', { bankCode: 'hdfc0000123' }, ['beneficiary', 'bankCode']],
    ['IN', { account: '12345678' }, ['beneficiary', 'account']],
    ['DE', { account: 'DE88370400440532013000' }, ['beneficiary', 'account']], // mod-97
    ['DE', { account: 'ES9121000418450200051332' }, ['beneficiary', 'account']], // valid, but Spanish
    ['ES', { account: 'ES9121000418450200051333' }, ['beneficiary', 'account']],
    ['DE', { bic: 'CAIXESBBXXX' }, ['beneficiary', 'bic']],
    ['GB', { bankCode: '60-16-1' }, ['beneficiary', 'bankCode']],
    ['GB', { bankCode: '60/16/13' }, ['beneficiary', 'bankCode']],
    ['GB', { account: '3192681' }, ['beneficiary', 'account']],
    ['VN', { phone: { callingCode: '+1', number: '2025550100' } }, ['beneficiary', 'phone', 'callingCode']],
    ['VN', { bankCode: '123456' }, ['beneficiary', 'bankCode']],
  ];
  it.each(malformed)('%s: %o is invalid', (country, change, path) => {
    const problems = problemsWith(country, change);
    expect(problems.missing).toEqual([]);
    expect(problems.invalid.map((p) => p.path)).toEqual([path]);
    expect(problems.invalid[0]?.message).toMatch(/^must /);
  });

  it('says what an account must be', () => {
    expect(problemsWith('MX', { account: '032180000118359718' }).invalid[0]?.message).toBe('must be an 18-digit CLABE with a valid check digit');
  });

  it('accepts the forms people write: spaced IBANs, sort codes with or without hyphens', () => {
    expect(problemsWith('DE', { account: 'DE89 3704 0044 0532 0130 00' }).invalid).toEqual([]);
    expect(problemsWith('GB', { bankCode: '601613' }).invalid).toEqual([]);
    expect(problemsWith('BR', { account: 'pagamentos@example.com.br' }).invalid).toEqual([]);
    expect(problemsWith('BR', { account: '+5511912345678' }).invalid).toEqual([]);
  });

  it('takes each form of PIX key and TED account, whole, and nothing near them', () => {
    const accepted = [
      'pagamentos@example.com.br', '+5511912345678', '+551191234567', '12345678901', '12345678000195',
      '123e4567-e89b-12d3-a456-426614174000', '1234-5678901-2', '12345678901X', '1234-123-x',
    ];
    for (const account of accepted) expect(problemsWith('BR', { account }).invalid, account).toEqual([]);
    const refused = [
      // Digits alone are a TED branch-account-digit from 8 to 17 of them: fewer or more are refused.
      'pagamentos@example', '+5511912345', '+55119123456789', '+4411912345678', '1', '1234567', '123456789012345678',
      'abcdefghijk', 'abcdefghijklmn', 'a2345678901', '1234567800019a', '123e4567-e89b-12d3-a456-42661417400',
      '123e4567e89b-12d3-a456-426614174000', '123e456-e89b-12d3-a456-426614174000', '123e4567-e89-12d3-a456-426614174000',
      '123e4567-e89b-12d-a456-426614174000', '123e4567-e89b-12d3-a45-426614174000', 'g23e4567-e89b-12d3-a456-426614174000',
      '123e4567-g89b-12d3-a456-426614174000', '123e4567-e89b-g2d3-a456-426614174000', '123e4567-e89b-12d3-g456-426614174000',
      '123e4567-e89b-12d3-a456-g26614174000', 'x 123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174000 x',
      '123-1234567-1', '1234-12-1', '1234-1234567-12', 'x1234-1234567-1', '1234-1234567-1x', '1234-1234567-Y', 'x12345678901',
    ];
    for (const account of refused) expect(problemsWith('BR', { account }).invalid.map((problem) => problem.path.join('.')), account).toEqual(['beneficiary.account']);
  });

  it('never repeats the account in a message', () => {
    fc.assert(
      fc.property(fc.constantFrom(...corridorCatalogue), fc.string({ minLength: 8, maxLength: 40 }), (corridor, account) => {
        const problems = beneficiaryProblems(corridor, { ...sampleBeneficiary(corridor), account });
        for (const problem of problems.invalid) expect(problem.message).not.toContain(account);
      }),
    );
  });
});

describe('check digits', () => {
  it('CLABE: any single changed digit is caught', () => {
    const clabe = '032180000118359719';
    expect(clabeValid(clabe)).toBe(true);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 17 }), fc.integer({ min: 1, max: 9 }), (index, shift) => {
        const digit = (Number(clabe[index]) + shift) % 10;
        expect(clabeValid(`${clabe.slice(0, index)}${digit}${clabe.slice(index + 1)}`)).toBe(false);
      }),
    );
  });

  it('IBAN: the standard examples pass, a changed digit does not', () => {
    expect(ibanValid('DE89370400440532013000', 'DE')).toBe(true);
    expect(ibanValid('ES9121000418450200051332', 'ES')).toBe(true);
    expect(ibanValid('DE89370400440532013001', 'DE')).toBe(false);
    expect(ibanValid('DE8937040044053201300', 'DE')).toBe(false);
    expect(ibanValid('FR1420041010050500013M02606', 'FR')).toBe(false); // no SEPA corridor to FR
  });

  it('NUBAN: the CBN worked example (bank 011, serial 000001457) has check digit 9', () => {
    expect(nubanValid('0000014579', '011')).toBe(true);
    expect(nubanValid('0000014579', '000011')).toBe(true);
    expect(nubanValid('0000014578', '011')).toBe(false);
  });
});

describe('the rules\' patterns are whole-value patterns', () => {
  const corridorOf = (country: string) => corridorCatalogue.find((c) => c.destinationCountry === country)!;
  const paths = (country: string, change: Record<string, unknown>) =>
    beneficiaryProblems(corridorOf(country), { ...sampleBeneficiary(corridorOf(country)), ...change }).invalid.map((problem) => problem.path.join('.'));

  it('refuses a bank code with anything before or after it', () => {
    for (const [country, valid] of [['CO', '1007'], ['NG', '011'], ['NG', '000011'], ['IN', 'HDFC0001234'], ['GB', '12-34-56'], ['VN', '970436']] as const) {
      expect(paths(country, { bankCode: valid }), `${country} ${valid}`).not.toContain('beneficiary.bankCode');
      for (const bankCode of [`x${valid}`, `${valid}1`]) expect(paths(country, { bankCode }), `${country} ${bankCode}`).toContain('beneficiary.bankCode');
    }
    expect(paths('NG', { bankCode: '1' })).toContain('beneficiary.bankCode');
    expect(paths('NG', { bankCode: 'abcdef' })).toContain('beneficiary.bankCode');
  });

  it('refuses a BIC with anything before or after it, or a branch that is not 3 letters or digits', () => {
    expect(paths('DE', { bic: 'COBADEFF' })).not.toContain('beneficiary.bic');
    expect(paths('DE', { bic: 'COBADEFFXXX' })).not.toContain('beneficiary.bic');
    for (const bic of ['XCOBADEFF', 'COBADEFFX', 'COBADEFFXX', 'COBADEFF---', 'COBADEFFXXXX']) expect(paths('DE', { bic }), bic).toContain('beneficiary.bic');
  });

  it('checks whole account numbers: CLABE of 18, IBAN of the country\'s length, NUBAN of 10 with a 3- or 6-digit bank', () => {
    const clabe = sampleBeneficiary(corridorOf('MX')).account!;
    expect(clabeValid(clabe)).toBe(true);
    expect(clabeValid(`${clabe}0`)).toBe(false);
    // Its check digits hold, but a German IBAN has 22 characters.
    expect(ibanValid('DE2211111111111111111', 'DE')).toBe(false);
    expect(nubanValid('0000014579', '011')).toBe(true);
    expect(nubanValid('0000014579', '000011')).toBe(true);
    expect(nubanValid('0000014579', 'x011')).toBe(false);
    expect(nubanValid('0000014579', '0110')).toBe(false);
  });

  it('finds a corridor only by all three of its keys', () => {
    expect(findCorridor('USDC', 'MXN', 'MX')?.to).toBe('MXN');
    expect(findCorridor('USDT', 'MXN', 'MX')).toBeUndefined();
    expect(findCorridor('USDC', 'BRL', 'MX')).toBeUndefined();
    expect(findCorridor('USDC', 'MXN', 'BR')).toBeUndefined();
  });

  it('has nothing to say of a country it has no rules for, and no sample for it', () => {
    const nowhere: CorridorDefinition = { ...corridorOf('MX'), destinationCountry: 'ZZ' };
    expect(corridorRequirements(nowhere)).toEqual(['name', 'account']);
    expect(beneficiaryProblems(nowhere, { name: 'Ana', account: '1' } as never)).toEqual({ missing: [], invalid: [] });
    expect(beneficiaryProblems(nowhere, { name: ' ', account: null } as never)).toEqual({ missing: ['name', 'account'], invalid: [] });
    expect(() => sampleBeneficiary(nowhere)).toThrow();
  });
});
