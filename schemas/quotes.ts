import * as z from 'zod';
import { CorridorInput, DecimalAmount, IdempotencyKey, Money, Rate, Timestamp } from './common.ts';

/** POST /quotes: unknown fields are ignored (stripped), as the contract says for this body. */
export const CreateQuoteBody = /* @__PURE__ */ z
  .object({
    corridor: CorridorInput,
    sendAmount: DecimalAmount.meta({ description: '`amount` is a decimal string; `currency` is the stablecoin sent.' }),
    integratorWalletId: z.string().min(1).max(265).optional().meta({ description: 'Must be the home wallet; omit to use it.' }),
    idempotencyKey: IdempotencyKey.optional().meta({
      description: 'The id the payment will carry; accepting the quote then requires the same key.',
    }),
  })
  .meta({ id: 'CreateQuoteRequest' });
export type CreateQuoteBody = z.infer<typeof CreateQuoteBody>;

/**
 * The owned-margin object. Its fields are not shown by the contract: we chose the margin in basis
 * points of the send amount and the amount it came to, which is what a reconciliation needs.
 */
export const Margin = /* @__PURE__ */ z
  .object({
    bps: z.number().int().min(0).meta({ description: 'Margin in basis points of the send amount.' }),
    amount: Money.meta({ description: 'What the margin came to, in the send currency.' }),
  })
  .meta({
    id: 'Margin',
    description: 'Owned-margin object. Its fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
  });
export type Margin = z.infer<typeof Margin>;

export const QuoteId = /* @__PURE__ */ z
  .string()
  // No regex flag: the document's `pattern` is the source alone, so the case is spelled out.
  .regex(/^q_[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/)
  .meta({ description: 'Single use; `q_<uuid>`.' });

export const QuotePreviewResult = /* @__PURE__ */ z
  .object({
    quoteId: QuoteId,
    sendAmount: Money,
    receiveAmount: Money.meta({ description: 'What the recipient gets, floored to whole destination units.' }),
    fee: Money.meta({ description: 'Disclosed fee of the winning route.' }),
    rate: Rate,
    provider: z.string().meta({ description: 'Opaque route label for support and reconciliation.' }),
    routeKind: z.enum(['orchestrator', 'owned']),
    estimatedSeconds: z.number().min(0),
    expiresAt: Timestamp.meta({ description: "Roughly one minute after issue; bounded by the provider's own quote." }),
    margin: Margin.optional(),
    networkFee: Money.optional().meta({
      description: 'Present when the payment must cross to another network to reach the rail; already deducted from what the recipient gets.',
    }),
    routed: z.boolean().optional(),
  })
  .meta({ id: 'QuotePreviewResult' });
export type QuotePreviewResult = z.infer<typeof QuotePreviewResult>;
