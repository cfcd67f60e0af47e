import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { Corridor, Money, Timestamp } from './common.ts';

/** Query times carry an offset (any offset, not only Z); the echoed period is in UTC. */
const QueryTime = /* @__PURE__ */ schema(() => z.iso.datetime({ offset: true }));

export const StatementQuery = /* @__PURE__ */ schema(() => z.object({
  from: z.optional(QueryTime).check(z.meta({ description: 'Inclusive; defaults to 30 days before `to`; must be strictly before `to`.' })),
  to: z.optional(QueryTime).check(z.meta({ description: 'Exclusive; defaults to now.' })),
}));
export type StatementQuery = z.infer<typeof StatementQuery>;

export const StatementLine = /* @__PURE__ */ schema(() => z
  .object({
    transactionId: z.string(),
    corridor: Corridor,
    sendAmount: Money,
    recipientReference: z.string(),
    fee: z.array(Money).check(z.meta({ description: 'Realized fee per currency; empty when nothing was realized.' })),
    initiatedAt: Timestamp,
  })
  .check(z.meta({ id: 'StatementLine' })));
export type StatementLine = z.infer<typeof StatementLine>;

export const Statement = /* @__PURE__ */ schema(() => z
  .object({
    integratorId: z.string(),
    period: z.object({ from: Timestamp, to: Timestamp }).check(z.meta({ description: 'The half-open period `[from, to)` actually used.' })),
    lines: z.array(StatementLine),
    totals: z.object({
      transactionCount: z.number().check(z.int(), z.minimum(0)),
      initiatedVolume: z.array(Money),
      feesEarned: z.array(Money),
    }),
    generatedAt: Timestamp,
  })
  .check(
    z.meta({
      id: 'Statement',
      description:
        'A recomputed snapshot, not an invoice: fees are realized fees, and figures can change when a payment in the window later reconciles or refunds.',
    }),
  ));
export type Statement = z.infer<typeof Statement>;

/** The columns of a statement as CSV (`Accept: text/csv`), in order. */
export const statementCsvColumns = [
  'transactionId',
  'initiatedAt',
  'fromCurrency',
  'toCurrency',
  'destinationCountry',
  'sendAmount',
  'recipientReference',
  'fee',
  'feeCurrency',
] as const;

export const statementCsvDescription =
  `With \`Accept: text/csv\`: the same statement as CSV (RFC 4180, CRLF line ends, UTF-8). A header row \`${statementCsvColumns.join(',')}\`, ` +
  "then one row per line in the same order. Amounts are decimal strings in their currency's scale (`250.000000`); `fee` and `feeCurrency` " +
  'are the realized fee (a payment realizes at most one, in its send currency), empty where nothing was realized. A field a spreadsheet ' +
  "would read as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'`. Totals are not repeated: sum the columns.";
