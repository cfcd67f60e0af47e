import { describe, expect, it } from 'vitest';
import {
  buildStatement, ceilToMillisecond, csvField, InvalidPeriod, smallestLineBytes, statementCsv, statementLineBytes, statementPeriod, type StatementRow,
} from '#domain/statements.ts';

const row = (overrides: Partial<StatementRow>): StatementRow => ({
  transactionId: 'tx', corridor: { from: 'USDC', to: 'MXN', destinationCountry: 'MX' }, send: '1000000', fee: '500000', feeRealized: true,
  recipientReference: 'ref', createdAt: '2026-03-01T00:00:00.000Z', ...overrides,
});

describe('statement period', () => {
  it('takes each end up to the next whole millisecond, in UTC', () => {
    expect(ceilToMillisecond('2026-03-01T00:00:00.000900Z')).toBe(Date.parse('2026-03-01T00:00:00.001Z'));
    expect(ceilToMillisecond('2026-03-01T00:00:00.0010000Z')).toBe(Date.parse('2026-03-01T00:00:00.001Z'));
    expect(ceilToMillisecond('2026-03-01T05:30:00+05:30')).toBe(Date.parse('2026-03-01T00:00:00.000Z'));
    expect(statementPeriod({ from: '2026-03-01T01:00:00+01:00', to: '2026-03-01T12:00:00.5Z' }, new Date())).toEqual({
      from: '2026-03-01T00:00:00.000Z', to: '2026-03-01T12:00:00.500Z',
    });
  });

  it('defaults to the 30 days before now, and refuses from at or after to', () => {
    const now = new Date('2026-11-25T10:00:00.123Z');
    expect(statementPeriod({}, now)).toEqual({ from: '2026-10-26T10:00:00.123Z', to: '2026-11-25T10:00:00.123Z' });
    expect(statementPeriod({ from: '2026-03-01T00:00:00Z', to: '2026-03-01T00:00:00.0000001Z' }, now)).toEqual({
      from: '2026-03-01T00:00:00.000Z', to: '2026-03-01T00:00:00.001Z',
    });
    // Inside one millisecond there is no whole one to stamp a payment with: not a period the service can echo.
    expect(() => statementPeriod({ from: '2026-03-01T00:00:00.0000001Z', to: '2026-03-01T00:00:00.0000002Z' }, now)).toThrow(InvalidPeriod);
    expect(() => statementPeriod({ from: '2026-03-01T00:00:00Z', to: '2026-03-01T00:00:00Z' }, now)).toThrow(InvalidPeriod);
    expect(() => statementPeriod({ from: '2026-11-25T10:00:00.123Z' }, now)).toThrow(InvalidPeriod);
    // The name the logs and Lambda's error report carry.
    expect(new InvalidPeriod('b', 'a').name).toBe('InvalidPeriod');
  });
});

describe('statement totals', () => {
  it('sums exactly per currency, beyond what a double holds, and counts only realized fees', () => {
    const huge = '9007199254740993'; // 2^53 + 1: a float would lose the 1
    const statement = buildStatement('org', { from: 'a', to: 'b' }, [
      row({ transactionId: 'a', send: huge, fee: huge }),
      row({ transactionId: 'b', send: '1', fee: '7', feeRealized: false }),
      row({ transactionId: 'c', corridor: { from: 'EURC', to: 'EUR', destinationCountry: 'DE' }, send: '5', fee: '2' }),
    ], new Date('2026-03-02T00:00:00Z'));
    expect(statement.totals).toEqual({
      transactionCount: 3,
      initiatedVolume: [{ amount: '9007199254740994', currency: 'USDC', scale: 6 }, { amount: '5', currency: 'EURC', scale: 6 }],
      feesEarned: [{ amount: huge, currency: 'USDC', scale: 6 }, { amount: '2', currency: 'EURC', scale: 6 }],
    });
    expect(statement.lines[1]!.fee).toEqual([]);
  });
});

describe('statement CSV', () => {
  it('quotes as RFC 4180 and defuses what a spreadsheet would evaluate', () => {
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    for (const formula of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(csvField(formula).replace(/^"/, '')).toMatch(/^'/);
    expect(csvField('=HYPERLINK("x")')).toBe(`"'=HYPERLINK(""x"")"`);
  });

  it('writes amounts as decimal strings in their scale, the fee empty where none was realized', () => {
    const statement = buildStatement('org', { from: 'a', to: 'b' }, [row({}), row({ transactionId: 'u', feeRealized: false, send: '5' })], new Date());
    expect(statementCsv(statement).split('\r\n')).toEqual([
      'transactionId,initiatedAt,fromCurrency,toCurrency,destinationCountry,sendAmount,recipientReference,fee,feeCurrency',
      'tx,2026-03-01T00:00:00.000Z,USDC,MXN,MX,1.000000,ref,0.500000,USDC',
      'u,2026-03-01T00:00:00.000Z,USDC,MXN,MX,0.000005,ref,,',
      '',
    ]);
  });
});

describe('the bytes a row adds to a statement (decision 096: the read stops at the size bound)', () => {
  const rows: StatementRow[] = [
    { transactionId: 'tx_aaaaaaaa', corridor: { from: 'USDC', to: 'MXN', destinationCountry: 'MX' }, send: '100000000', fee: '1500000', feeRealized: true, recipientReference: 'Factura é 1', createdAt: '2026-11-01T10:00:00.000Z' },
    { transactionId: 'tx_bbbbbbbb', corridor: { from: 'USDC', to: 'BRL', destinationCountry: 'BR' }, send: '5', fee: '0', feeRealized: false, recipientReference: 'ref "2"', createdAt: '2026-11-02T10:00:00.000Z' },
  ];
  const statement = buildStatement('org_1', { from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z' }, rows, new Date('2026-12-01T00:00:00.000Z'));
  const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

  it('are what its JSON line and comma, or its CSV row, take in the body', () => {
    // '[' + lines joined by ',' + ']': each line and one comma, the last comma being the closing bracket, plus the opening one.
    expect(bytes(JSON.stringify(statement.lines))).toBe(1 + rows.reduce((sum, row) => sum + statementLineBytes(row, 'json'), 0));
    const header = statementCsv({ ...statement, lines: [] });
    expect(bytes(statementCsv(statement))).toBe(bytes(header) + rows.reduce((sum, row) => sum + statementLineBytes(row, 'csv'), 0));
  });

  it('are never fewer than the smallest row\'s, in either format', () => {
    for (const format of ['json', 'csv'] as const) {
      const smallest = smallestLineBytes(format);
      expect(smallest).toBeGreaterThan(40);
      for (const row of rows) expect(statementLineBytes(row, format)).toBeGreaterThan(smallest);
    }
    expect(smallestLineBytes('json')).toBeGreaterThan(smallestLineBytes('csv'));
    // The shortest line there can be (an 8-character id, a 1-character reference, amounts 1 and 0,
    // USDC to MXN): pinned, so a smaller guess (which would size pages past the bound) is caught.
    expect([smallestLineBytes('json'), smallestLineBytes('csv')]).toEqual([224, 60]);
  });
});
