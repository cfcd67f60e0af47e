import * as z from 'zod';
import { isWithinLargestAmount, largestAmountMessage, largestWholeUnits } from '#domain/money.ts';
import { isPlainText, plainTextMessage } from '#domain/plainText.ts';

/** Shapes shared by many endpoints. Names follow the contract (service-interface.md, "Resources"). */

export const Timestamp = /* @__PURE__ */ z.string().datetime({ precision: 3 }).meta({
  id: 'Timestamp',
  description: 'ISO 8601 in UTC with millisecond precision and a Z offset.',
  example: '2026-11-23T09:30:00.000Z',
});

/**
 * An amount in a request: a decimal string of this pattern, bounded in length (docs/decisions/007)
 * and in value (docs/decisions/072). Checked here, so the bound holds on every body and query that
 * carries an amount before any handler runs; the handlers' exact parse checks it again.
 */
export function amountString(pattern: RegExp, patternMessage: string) {
  return z.string().regex(pattern, patternMessage).max(40).refine(isWithinLargestAmount, largestAmountMessage);
}

export const DecimalString = /* @__PURE__ */ amountString(/^\d+(\.\d+)?$/, 'must be a decimal string such as "12.50"').meta({
  id: 'DecimalString',
  description: `An amount as a decimal string; more decimals than the currency allows is refused, and so is more than ${largestWholeUnits} whole units.`,
});

/**
 * A name, address or reference a caller gives, `min` to `max` characters: one line of text that
 * reads in its own order. Every such field of a body that reaches an e-mail, a list or a statement
 * is this one refinement (docs/decisions/109), so a line break, a control character or a bidi
 * override is 400 `validation` naming the field, on every endpoint alike.
 */
export function plainText(max: number, min = 1) {
  return z.string().min(min).max(max).refine(isPlainText, plainTextMessage);
}

export const IdempotencyKey = /* @__PURE__ */ z
  .string()
  .regex(/^[A-Za-z0-9_.:-]{8,200}$/, 'must be 8 to 200 characters from letters, digits and _ . : -')
  .meta({ id: 'IdempotencyKey', description: 'Becomes the id of the operation.' });

export const CurrencyCode = /* @__PURE__ */ z.string().min(1).max(10);

export const Money = /* @__PURE__ */ z
  .object({
    amount: z.string().regex(/^-?\d+$/).meta({ description: 'Integer in units of 10^-scale' }),
    currency: z.string(),
    scale: z.number().int().min(0).optional(),
  })
  .meta({ id: 'Money', description: 'MoneyJSON: an exact amount in minor units.' });

export const Rate = /* @__PURE__ */ z
  .object({
    from: z.string(),
    to: z.string(),
    numerator: z.string().regex(/^\d+$/),
    denominator: z.string().regex(/^\d+$/),
  })
  .meta({ id: 'Rate', description: 'One whole unit of `from` buys numerator/denominator whole units of `to`.' });

export const Corridor = /* @__PURE__ */ z
  .object({ from: z.string(), to: z.string(), destinationCountry: z.string().length(2) })
  .meta({ id: 'Corridor' });

/** The contract's bound on a cursor; every cursor the service issues fits it (docs/decisions/070). */
export const CursorMaxLength = 512;

/** Query parameters of the paginated lists. */
export function pageQuery(maxLimit: number, cursor: z.ZodString = z.string().min(1).max(CursorMaxLength)) {
  return z.object({
    limit: z.coerce.number().int().positive().max(maxLimit).optional(),
    cursor: cursor.optional(),
  });
}

export const PageFields = {
  count: z.number().int().min(0).meta({ description: 'Rows in this page, not a total.' }),
  nextCursor: z.string().nullable().meta({ description: 'Send back unchanged as `cursor`; null is the only end of list.' }),
  hasMore: z.boolean(),
};

/** Two-letter country code; the contract bounds it by length only (ISO 3166-1 alpha-2 by intent). */
export const CountryCode = /* @__PURE__ */ z.string().length(2);

/**
 * `{amount, currency}` as sent in requests (`sendAmount`, `amount`): the amount is a decimal string,
 * never a number, so no client float ever reaches the ledger. Unknown fields are stripped here, as in
 * the lenient bodies that carry it; strict bodies use `.strict()` on a copy.
 */
export const DecimalAmount = /* @__PURE__ */ z
  .object({ amount: DecimalString, currency: z.string().min(1).max(16) })
  .meta({ id: 'DecimalAmount', description: 'An amount to send: a decimal string and a currency code.' });
export type DecimalAmount = z.infer<typeof DecimalAmount>;

/** The corridor as a request names it: the source is always the stablecoin sent, so only `to` is given. */
export const CorridorInput = /* @__PURE__ */ z
  .object({
    to: z.string().min(1).max(16).meta({ description: 'Destination currency.' }),
    destinationCountry: CountryCode.meta({ description: 'ISO 3166-1 alpha-2.' }),
  })
  .meta({ id: 'CorridorInput' });
export type CorridorInput = z.infer<typeof CorridorInput>;

/**
 * A path segment naming one resource. Ids are at most 265 characters (a batch item's
 * transaction id is `<batchId up to 200>:<itemRef up to 64>`); anything longer names nothing.
 */
export const PathId = /* @__PURE__ */ z
  .string()
  .min(1)
  .max(265)
  // Characters are not bytes: 265 emoji would pass the length check and overflow DynamoDB's
  // 1024-byte key. No id the service issues is anything but ASCII, so 512 bytes is generous.
  .refine((id) => new TextEncoder().encode(id).length <= 512, 'is too long');

export type Timestamp = z.infer<typeof Timestamp>;
export type DecimalString = z.infer<typeof DecimalString>;
export type IdempotencyKey = z.infer<typeof IdempotencyKey>;
export type Money = z.infer<typeof Money>;
export type Rate = z.infer<typeof Rate>;
export type Corridor = z.infer<typeof Corridor>;
