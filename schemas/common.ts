import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { isWithinLargestAmount, largestAmountMessage, largestWholeUnits } from '#domain/money.ts';
import { isPlainText, plainTextMessage } from '#domain/plainText.ts';

/** Shapes shared by many endpoints. Names follow the contract (service-interface.md, "Resources"). */

export const Timestamp = /* @__PURE__ */ schema(() => z.string().check(
  z.iso.datetime({ precision: 3 }),
  z.meta({
    id: 'Timestamp',
    description: 'ISO 8601 in UTC with millisecond precision and a Z offset.',
    example: '2026-11-23T09:30:00.000Z',
  }),
));

/**
 * An amount in a request: a decimal string of this pattern, bounded in length (docs/decisions/007)
 * and in value (docs/decisions/072). Checked here, so the bound holds on every body and query that
 * carries an amount before any handler runs; the handlers' exact parse checks it again.
 */
export function amountString(pattern: RegExp, patternMessage: string) {
  return z.string().check(z.regex(pattern, patternMessage), z.maxLength(40), z.refine(isWithinLargestAmount, largestAmountMessage));
}

export const DecimalString = /* @__PURE__ */ schema(() => amountString(/^\d+(\.\d+)?$/, 'must be a decimal string such as "12.50"').check(
  z.meta({
    id: 'DecimalString',
    description: `An amount as a decimal string; more decimals than the currency allows is refused, and so is more than ${largestWholeUnits} whole units.`,
  }),
));

/**
 * A name, address or reference a caller gives, `min` to `max` characters: one line of text that
 * reads in its own order. Every such field of a body that reaches an e-mail, a list or a statement
 * is this one refinement (docs/decisions/109), so a line break, a control character or a bidi
 * override is 400 `validation` naming the field, on every endpoint alike.
 */
export function plainText(max: number, min = 1) {
  return z.string().check(z.minLength(min), z.maxLength(max), z.refine(isPlainText, plainTextMessage));
}

export const IdempotencyKey = /* @__PURE__ */ schema(() => z
  .string()
  .check(
    z.regex(/^[A-Za-z0-9_.:-]{8,200}$/, 'must be 8 to 200 characters from letters, digits and _ . : -'),
    z.meta({ id: 'IdempotencyKey', description: 'Becomes the id of the operation.' }),
  ));

export const CurrencyCode = /* @__PURE__ */ schema(() => z.string().check(z.minLength(1), z.maxLength(10)));

export const Money = /* @__PURE__ */ schema(() => z
  .object({
    amount: z.string().check(z.regex(/^-?\d+$/), z.meta({ description: 'Integer in units of 10^-scale' })),
    currency: z.string(),
    scale: z.optional(z.number().check(z.int(), z.minimum(0))),
  })
  .check(z.meta({ id: 'Money', description: 'MoneyJSON: an exact amount in minor units.' })));

export const Rate = /* @__PURE__ */ schema(() => z
  .object({
    from: z.string(),
    to: z.string(),
    numerator: z.string().check(z.regex(/^\d+$/)),
    denominator: z.string().check(z.regex(/^\d+$/)),
  })
  .check(z.meta({ id: 'Rate', description: 'One whole unit of `from` buys numerator/denominator whole units of `to`.' })));

export const Corridor = /* @__PURE__ */ schema(() => z
  .object({ from: z.string(), to: z.string(), destinationCountry: z.string().check(z.length(2)) })
  .check(z.meta({ id: 'Corridor' })));

/** The contract's bound on a cursor; every cursor the service issues fits it (docs/decisions/070). */
export const CursorMaxLength = 512;

/** Query parameters of the paginated lists. */
export function pageQuery(maxLimit: number, cursor: z.ZodMiniString<string> = z.string().check(z.minLength(1), z.maxLength(CursorMaxLength))) {
  return z.object({
    limit: z.optional(z.coerce.number().check(z.int(), z.positive(), z.maximum(maxLimit))),
    cursor: z.optional(cursor),
  });
}

export const PageFields = /* @__PURE__ */ schema(() => ({
  count: z.number().check(z.int(), z.minimum(0), z.meta({ description: 'Rows in this page, not a total.' })),
  nextCursor: z.nullable(z.string()).check(z.meta({ description: 'Send back unchanged as `cursor`; null is the only end of list.' })),
  hasMore: z.boolean(),
}));

/** Two-letter country code; the contract bounds it by length only (ISO 3166-1 alpha-2 by intent). */
export const CountryCode = /* @__PURE__ */ schema(() => z.string().check(z.length(2)));

/**
 * `{amount, currency}` as sent in requests (`sendAmount`, `amount`): the amount is a decimal string,
 * never a number, so no client float ever reaches the ledger. Unknown fields are stripped here, as in
 * the lenient bodies that carry it; strict bodies use `z.strictObject(DecimalAmount.shape)`.
 */
export const DecimalAmount = /* @__PURE__ */ schema(() => z
  .object({ amount: DecimalString, currency: z.string().check(z.minLength(1), z.maxLength(16)) })
  .check(z.meta({ id: 'DecimalAmount', description: 'An amount to send: a decimal string and a currency code.' })));
export type DecimalAmount = z.infer<typeof DecimalAmount>;

/** The corridor as a request names it: the source is always the stablecoin sent, so only `to` is given. */
export const CorridorInput = /* @__PURE__ */ schema(() => z
  .object({
    to: z.string().check(z.minLength(1), z.maxLength(16), z.meta({ description: 'Destination currency.' })),
    destinationCountry: CountryCode.check(z.meta({ description: 'ISO 3166-1 alpha-2.' })),
  })
  .check(z.meta({ id: 'CorridorInput' })));
export type CorridorInput = z.infer<typeof CorridorInput>;

/**
 * A path segment naming one resource. Ids are at most 265 characters (a batch item's
 * transaction id is `<batchId up to 200>:<itemRef up to 64>`); anything longer names nothing.
 */
export const PathId = /* @__PURE__ */ schema(() => z.string().check(
  z.minLength(1),
  z.maxLength(265),
  // Characters are not bytes: 265 emoji would pass the length check and overflow DynamoDB's
  // 1024-byte key. No id the service issues is anything but ASCII, so 512 bytes is generous.
  z.refine((id) => new TextEncoder().encode(id).length <= 512, 'is too long'),
));

export type Timestamp = z.infer<typeof Timestamp>;
export type DecimalString = z.infer<typeof DecimalString>;
export type IdempotencyKey = z.infer<typeof IdempotencyKey>;
export type Money = z.infer<typeof Money>;
export type Rate = z.infer<typeof Rate>;
export type Corridor = z.infer<typeof Corridor>;
