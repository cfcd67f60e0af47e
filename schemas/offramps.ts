import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { DecimalString, IdempotencyKey, Money, PageFields, PathId, Timestamp, pageQuery, plainText } from './common.ts';

// ---- Beneficiaries (off-ramp payees) ------------------------------------------------------

/** POST /treasury/beneficiaries: unknown fields are ignored (stripped); every field is required. */
export const CreateBeneficiaryBody = /* @__PURE__ */ schema(() => z
  .object({
    name: plainText(140),
    accountId: plainText(140).check(z.meta({ description: 'IBAN or account number. Nothing verifies it.' })),
    bic: plainText(11, 8),
    bankName: plainText(140),
    city: plainText(140),
    addressLine: plainText(140),
    country: z.string().check(z.regex(/^[A-Za-z]{2}$/)),
    currency: z.string().check(z.length(3), z.meta({ description: 'The payout currency.' })),
  })
  .check(
    z.meta({
      id: 'CreateBeneficiaryRequest',
      description: 'No idempotency key: a retry registers twice. Beneficiaries cannot be edited or deleted.',
    }),
  ));
export type CreateBeneficiaryBody = z.infer<typeof CreateBeneficiaryBody>;

export const BeneficiaryView = /* @__PURE__ */ schema(() => z
  .object({
    id: z.uuid(),
    name: z.string(),
    accountId: z.string(),
    bic: z.string(),
    bankName: z.string(),
    city: z.string(),
    addressLine: z.string(),
    country: z.string(),
    currency: z.string(),
    createdAt: Timestamp,
  })
  .check(z.meta({ id: 'BeneficiaryView', description: 'A registered off-ramp payee.' })));
export type BeneficiaryView = z.infer<typeof BeneficiaryView>;

export const BeneficiaryList = /* @__PURE__ */ schema(() => z
  .object({ beneficiaries: z.array(BeneficiaryView), count: z.number().check(z.int(), z.minimum(0)) })
  .check(z.meta({ id: 'BeneficiaryList' })));
export type BeneficiaryList = z.infer<typeof BeneficiaryList>;

// ---- Off-ramps ----------------------------------------------------------------------------

export const OffRampQuoteId = /* @__PURE__ */ schema(() => z.string().check(z.regex(/^oq_[A-Za-z0-9-]{8,80}$/)));

export const OffRampQuoteQuery = /* @__PURE__ */ schema(() => z.object({
  amount: DecimalString.check(z.meta({ description: 'USDC.' })),
  beneficiaryId: z.uuid(),
}));
export type OffRampQuoteQuery = z.infer<typeof OffRampQuoteQuery>;

export const OffRampQuote = /* @__PURE__ */ schema(() => z
  .object({
    pulled: Money,
    settlementCurrency: z.string(),
    atPar: z.boolean(),
    feeBps: z.number(),
    deliveryFee: Money,
    minimum: Money,
    fee: z.optional(Money),
    net: z.optional(Money).check(z.meta({ description: 'What the beneficiary receives.' })),
    fxBufferBps: z.optional(z.number()).check(
      z.meta({
        description: 'Held back from the expected rate when the rate is not yet known.',
      }),
    ),
    quoteId: z.optional(OffRampQuoteId).check(z.meta({ description: 'Present when `net` is.' })),
    expiresAt: z.optional(Timestamp),
  })
  .check(z.meta({ id: 'OffRampQuote' })));
export type OffRampQuote = z.infer<typeof OffRampQuote>;

/** POST /treasury/offramp: unknown fields are ignored (stripped). */
export const CreateOffRampBody = /* @__PURE__ */ schema(() => z
  .object({
    idempotencyKey: IdempotencyKey.check(z.meta({ description: 'Becomes the off-ramp id.' })),
    amount: z.object({
      amount: DecimalString,
      currency: z.string().check(z.minLength(1), z.maxLength(16), z.meta({ description: 'USDC.' })),
    }),
    beneficiaryId: z.uuid(),
    chain: z.optional(z.string().check(z.regex(/^[a-z0-9-]{1,40}$/))).check(z.meta({ description: 'Only the home network is accepted; omit.' })),
    quoteId: z.optional(OffRampQuoteId).check(
      z.meta({
        description: 'Binds the payment to the quoted net; without it the payout is whatever the conversion produces.',
      }),
    ),
  })
  .check(z.meta({ id: 'CreateOffRampRequest', description: 'Amount and beneficiary must match the quote.' })));
export type CreateOffRampBody = z.infer<typeof CreateOffRampBody>;

/**
 * Stages seen in one paid off-ramp, then the end states. REFUNDING (USDC on its way back) is not in the
 * contract's list; it is our choice, the counterpart of a withdrawal's RETURNING.
 */
export const OffRampStage = /* @__PURE__ */ schema(() => z
  .enum(['PULLING', 'PULLED', 'DEPOSITING', 'CREDITED', 'CONVERTING', 'SETTLING', 'PAYING', 'PAID', 'REFUNDING', 'REFUNDED', 'FAILED', 'IN_DOUBT'])
  .check(
    z.meta({
      id: 'OffRampStage',
      description: "Where an off-ramp is now. REFUNDING is our addition (docs/decisions/030); the others are the contract's.",
    }),
  ));
export type OffRampStage = z.infer<typeof OffRampStage>;

export const OffRampState = /* @__PURE__ */ schema(() => z.enum(['PAID', 'REFUNDED', 'FAILED', 'IN_DOUBT']).check(
  z.meta({
    id: 'OffRampState',
    description: 'How an off-ramp ended.',
  }),
));
export type OffRampState = z.infer<typeof OffRampState>;

export const OffRampAccepted = /* @__PURE__ */ schema(() => z
  .object({ offRampId: z.string(), status: OffRampStage })
  .check(z.meta({ id: 'OffRampAccepted', description: "`status` is the off-ramp's stage when answered (our choice of values)." })));
export type OffRampAccepted = z.infer<typeof OffRampAccepted>;

export const OffRampStatus = /* @__PURE__ */ schema(() => z
  .object({
    offRampId: z.string(),
    stage: OffRampStage,
    state: z.optional(OffRampState),
    closedAs: z.optional(z.string()),
    timeline: z.array(
      z.object({
        stage: OffRampStage,
        at: z.number().check(
          z.int(),
          z.minimum(0),
          z.meta({
            description: 'Orders events; not a timestamp. The contract does not give its type: a sequence number is our choice (docs/decisions/030).',
          }),
        ),
        detail: z.optional(z.string()),
      }),
    ),
    credited: z.optional(Money),
    net: z.optional(Money),
    fee: z.optional(Money),
    deliveryFee: z.optional(Money),
    slippage: z.optional(Money),
    fxBufferBps: z.optional(z.number()),
  })
  .check(z.meta({ id: 'OffRampStatus' })));
export type OffRampStatus = z.infer<typeof OffRampStatus>;

export const ListOffRampsQuery = /* @__PURE__ */ schema(() => pageQuery(200, z.string().check(z.minLength(1), z.maxLength(1024))));
export type ListOffRampsQuery = z.infer<typeof ListOffRampsQuery>;

/** Rows of GET /treasury/offramps are not shown by the contract; ours mirror payment rows (no state). */
export const OffRampListItem = /* @__PURE__ */ schema(() => z
  .object({
    offRampId: z.string(),
    amount: Money.check(z.meta({ description: 'The USDC pulled.' })),
    beneficiaryId: z.string(),
    createdAt: Timestamp,
  })
  .check(
    z.meta({
      id: 'OffRampListItem',
      description: 'Rows carry no state. Fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
    }),
  ));
export type OffRampListItem = z.infer<typeof OffRampListItem>;

export const OffRampList = /* @__PURE__ */ schema(() => z.object({ offramps: z.array(OffRampListItem), ...PageFields }).check(z.meta({ id: 'OffRampList' })));
export type OffRampList = z.infer<typeof OffRampList>;

export const OffRampParams = /* @__PURE__ */ schema(() => z.object({ offRampId: PathId }));
export type OffRampParams = z.infer<typeof OffRampParams>;
