import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { CorridorInput, DecimalAmount, IdempotencyKey, Money, Rate, Timestamp } from './common.ts';

/** POST /quotes: unknown fields are ignored (stripped), as the contract says for this body. */
export const CreateQuoteBody = /* @__PURE__ */ schema(() => z
  .object({
    corridor: CorridorInput,
    sendAmount: DecimalAmount.check(z.meta({ description: '`amount` is a decimal string; `currency` is the stablecoin sent.' })),
    integratorWalletId: z
      .optional(z.string().check(z.minLength(1), z.maxLength(265)))
      .check(z.meta({ description: 'Must be the home wallet; omit to use it.' })),
    idempotencyKey: z.optional(IdempotencyKey).check(
      z.meta({
        description: 'The id the payment will carry; accepting the quote then requires the same key.',
      }),
    ),
  })
  .check(z.meta({ id: 'CreateQuoteRequest' })));
export type CreateQuoteBody = z.infer<typeof CreateQuoteBody>;

/**
 * The owned-margin object. Its fields are not shown by the contract: we chose the margin in basis
 * points of the send amount and the amount it came to, which is what a reconciliation needs.
 */
export const Margin = /* @__PURE__ */ schema(() => z
  .object({
    bps: z.number().check(z.int(), z.minimum(0), z.meta({ description: 'Margin in basis points of the send amount.' })),
    amount: Money.check(z.meta({ description: 'What the margin came to, in the send currency.' })),
  })
  .check(
    z.meta({
      id: 'Margin',
      description: 'Owned-margin object. Its fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
    }),
  ));
export type Margin = z.infer<typeof Margin>;

export const QuoteId = /* @__PURE__ */ schema(() => z
  .string()
  // No regex flag: the document's `pattern` is the source alone, so the case is spelled out.
  .check(z.regex(/^q_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/), z.meta({ description: 'Single use; `q_<uuid>`.' })));

export const QuotePreviewResult = /* @__PURE__ */ schema(() => z
  .object({
    quoteId: QuoteId,
    sendAmount: Money,
    receiveAmount: Money.check(z.meta({ description: 'What the recipient gets, floored to whole destination units.' })),
    fee: Money.check(z.meta({ description: 'Disclosed fee of the winning route.' })),
    rate: Rate,
    provider: z.string().check(z.meta({ description: 'Opaque route label for support and reconciliation.' })),
    routeKind: z.enum(['orchestrator', 'owned']),
    estimatedSeconds: z.number().check(z.minimum(0)),
    expiresAt: Timestamp.check(z.meta({ description: "Roughly one minute after issue; bounded by the provider's own quote." })),
    margin: z.optional(Margin),
    networkFee: z.optional(Money).check(
      z.meta({
        description: 'Present when the payment must cross to another network to reach the rail; already deducted from what the recipient gets.',
      }),
    ),
    routed: z.optional(z.boolean()),
  })
  .check(z.meta({ id: 'QuotePreviewResult' })));
export type QuotePreviewResult = z.infer<typeof QuotePreviewResult>;
