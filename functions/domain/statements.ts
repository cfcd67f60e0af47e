/**
 * Fee statements (docs/decisions/096): the period a query asks for, the lines and exact totals of
 * the payments initiated in it, and the same statement as CSV. Pure: the rows come from the store.
 */
import type { Money } from '#schemas/common.ts';
import { statementCsvColumns, type Statement, type StatementLine } from '#schemas/statements.ts';
import { formatDecimal, money } from './money.ts';

/** The contract's default window: `from` is this long before `to`. */
export const defaultStatementDays = 30;

/** `from` is not strictly before `to`: the contract's 400 `invalid_period`. */
export class InvalidPeriod extends Error {
  constructor(from: string, to: string) {
    super(`The period is half-open [from, to): from (${from}) must be strictly before to (${to}).`);
    this.name = 'InvalidPeriod';
  }
}

/**
 * An instant of a query (any offset, any number of decimals) as the first whole millisecond at or
 * after it. Payments are stamped to the millisecond, so a half-open window whose two ends are both
 * taken up this way holds exactly the payments of the window asked for; flooring would take in a
 * payment stamped up to a millisecond before `from`.
 */
export function ceilToMillisecond(text: string): number {
  // Date.parse keeps milliseconds and drops the rest, which is a floor for any time after 1970.
  const floor = Date.parse(text);
  const beyond = /\.\d{3}(\d+)/.exec(text)?.[1];
  return beyond && /[1-9]/.test(beyond) ? floor + 1 : floor;
}

/** The period actually used, in UTC with milliseconds: defaults filled, `from < to` checked. */
export function statementPeriod(query: { from?: string; to?: string }, now: Date): { from: string; to: string } {
  const to = query.to === undefined ? now.getTime() : ceilToMillisecond(query.to);
  const from = query.from === undefined ? to - defaultStatementDays * 24 * 3600 * 1000 : ceilToMillisecond(query.from);
  const period = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  if (from >= to) throw new InvalidPeriod(period.from, period.to);
  return period;
}

/** What a statement line needs of a payment, as the store keeps it (amounts in minor units). */
export interface StatementRow {
  transactionId: string;
  corridor: { from: string; to: string; destinationCountry: string };
  /** Minor units of `corridor.from`, as are `fee`. */
  send: string;
  /** The fee priced for the payment; realized only once `feeRealized`. */
  fee: string;
  /**
   * Set in the transaction that reaches RECONCILED, the one whose ledger capture credits this fee
   * to `revenue:fees`; never set for a payment that failed, was refunded or is still running.
   */
  feeRealized: boolean;
  recipientReference: string;
  createdAt: string;
}

/** The fee a payment has realized: its whole fee once reconciled, nothing before or otherwise. */
export function realizedFee(row: StatementRow): Money[] {
  return row.feeRealized ? [money(BigInt(row.fee), row.corridor.from)] : [];
}

function addTo(sums: Map<string, bigint>, amount: Money): void {
  sums.set(amount.currency, (sums.get(amount.currency) ?? 0n) + BigInt(amount.amount));
}

/** Sums per currency, in the order each currency first appears. */
function moneyOf(sums: Map<string, bigint>): Money[] {
  return [...sums].map(([currency, amount]) => money(amount, currency));
}

/** A row as the statement shows it: its realized fee, amounts as money. */
export function statementLineOf(row: StatementRow): StatementLine {
  return {
    transactionId: row.transactionId,
    corridor: row.corridor,
    sendAmount: money(BigInt(row.send), row.corridor.from),
    recipientReference: row.recipientReference,
    fee: realizedFee(row),
    initiatedAt: row.createdAt,
  };
}

/** The statement of these rows (already the window's, in the order to list them). */
export function buildStatement(organizationId: string, period: { from: string; to: string }, rows: StatementRow[], now: Date): Statement {
  const volume = new Map<string, bigint>();
  const fees = new Map<string, bigint>();
  const lines: StatementLine[] = rows.map((row) => {
    const line = statementLineOf(row);
    addTo(volume, line.sendAmount);
    for (const fee of line.fee) addTo(fees, fee);
    return line;
  });
  return {
    integratorId: organizationId,
    period,
    lines,
    totals: { transactionCount: lines.length, initiatedVolume: moneyOf(volume), feesEarned: moneyOf(fees) },
    generatedAt: now.toISOString(),
  };
}

export type StatementFormat = 'json' | 'csv';

/**
 * The bytes a row adds to the statement's body in this format: its JSON line and the comma after
 * it, or its CSV row. The body is these and a small envelope, so once the rows read so far add up
 * to more than the size bound the statement cannot be answered, whatever else the period holds
 * (decision 096: the read stops there).
 */
export function statementLineBytes(row: StatementRow, format: StatementFormat): number {
  const line = statementLineOf(row);
  return utf8Bytes(format === 'json' ? JSON.stringify(line) : csvRow(line)) + (format === 'json' ? 1 : 0);
}

/**
 * Fewer bytes than any row adds in this format (the shortest id, reference and amount there can
 * be): rows still to read before the bound can be passed are at most the bytes left over this.
 * Only sizes the pages read; a row larger than it just means fewer rows a page.
 */
export function smallestLineBytes(format: StatementFormat): number {
  const row: StatementRow = {
    transactionId: 'x'.repeat(8), corridor: { from: 'USDC', to: 'MXN', destinationCountry: 'MX' }, send: '1', fee: '0', feeRealized: false,
    recipientReference: 'x', createdAt: new Date(0).toISOString(),
  };
  return statementLineBytes(row, format);
}

function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/**
 * A field as RFC 4180 wants it, and never a formula: text a spreadsheet would evaluate (starting
 * with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'`, as OWASP advises for
 * CSV injection; a field holding a comma, a quote or a line break is quoted, quotes doubled.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The statement as CSV: a header row, then one row per payment with amounts as decimal strings in
 * their currency's scale. A payment's realized fee is one currency (its send currency), so it is
 * one `fee` column with its `feeCurrency`, both empty where nothing was realized. Lines end CRLF.
 */
export function statementCsv(statement: Statement): string {
  return [`${statementCsvColumns.map(csvField).join(',')}\r\n`, ...statement.lines.map(csvRow)].join('');
}

/** One line's CSV row, CRLF included. */
function csvRow(line: StatementLine): string {
  const decimal = (amount: Money) => formatDecimal(BigInt(amount.amount), amount.scale ?? 0);
  const fee = line.fee[0];
  const fields = [
    line.transactionId, line.initiatedAt, line.corridor.from, line.corridor.to, line.corridor.destinationCountry, decimal(line.sendAmount),
    line.recipientReference, fee ? decimal(fee) : '', fee ? fee.currency : '',
  ];
  return `${fields.map(csvField).join(',')}\r\n`;
}
