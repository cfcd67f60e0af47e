import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { Corridor, CorridorInput, CountryCode, DecimalAmount, IdempotencyKey, Money, PageFields, PathId, Timestamp, pageQuery, plainText } from './common.ts';
import { Margin } from './quotes.ts';

/** Beneficiary of a payment (payment and batch item bodies). Which fields a corridor needs varies. */
export const Beneficiary = /* @__PURE__ */ schema(() => z
  .object({
    name: plainText(200),
    account: plainText(140),
    bankCode: z.optional(plainText(35)),
    bic: z.optional(plainText(11, 8)),
    bankName: z.optional(plainText(200)),
    country: z.optional(CountryCode),
    city: z.optional(plainText(100)),
    addressLine: z.optional(plainText(280)),
    state: z.optional(plainText(100)),
    postalCode: z.optional(plainText(20)),
    phone: z.optional(
      z.object({
        callingCode: z.string().check(z.regex(/^\+?\d{1,4}$/)),
        number: z.string().check(z.regex(/^\d{4,15}$/)),
      }),
    ),
  })
  .check(
    z.meta({
      id: 'Beneficiary',
      description: 'A field the corridor needs and the request lacks gives 400 `beneficiary_incomplete` naming it in `missing`.',
    }),
  ));
export type Beneficiary = z.infer<typeof Beneficiary>;

/** Travel Rule sender; every field is optional. Identifiers are references, never full numbers. */
export const Originator = /* @__PURE__ */ schema(() => z
  .partial(
    z.object({
      name: plainText(200),
      account: plainText(140).check(z.meta({ description: 'A reference, masked or last-four; never a full identifier.' })),
      address: plainText(280),
      country: CountryCode,
      bic: plainText(11, 8),
      institution: plainText(200),
      idNumber: plainText(80).check(z.meta({ description: 'A reference, masked or last-four.' })),
      dateOfBirth: z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/)),
    }),
  )
  .check(z.meta({ id: 'Originator', description: 'Travel Rule sender.' })));
export type Originator = z.infer<typeof Originator>;

export const PayoutMode = /* @__PURE__ */ schema(() => z.enum(['regular', 'instant']));

/** POST /transactions: unknown fields are ignored (stripped). There is no organization field. */
export const CreateTransactionBody = /* @__PURE__ */ schema(() => z
  .object({
    idempotencyKey: IdempotencyKey.check(z.meta({ description: 'Becomes the transaction id.' })),
    corridor: CorridorInput,
    sendAmount: DecimalAmount,
    integratorWalletId: z
      .optional(z.string().check(z.minLength(1), z.maxLength(265)))
      .check(z.meta({ description: 'Must be the home wallet; funding is always from it.' })),
    recipientReference: plainText(200).check(z.meta({ description: "The caller's own reference, echoed back, never shown to the recipient." })),
    originator: z.optional(Originator),
    beneficiary: z.optional(Beneficiary).check(
      z.meta({
        description: 'Optional in the schema, but a payment without one has nowhere to pay.',
      }),
    ),
    payoutMode: z.optional(PayoutMode).check(z.meta({ description: 'Accepted for compatibility; every payment runs as regular.' })),
    quoteId: z.optional(z.string().check(z.minLength(1), z.maxLength(200))).check(z.meta({ description: 'Executes at the locked price.' })),
  })
  .check(z.meta({ id: 'CreateTransactionRequest' })));
export type CreateTransactionBody = z.infer<typeof CreateTransactionBody>;

export const PaymentState = /* @__PURE__ */ schema(() => z
  .enum([
    'INITIATED',
    'QUOTED',
    'FUNDED',
    'ROUTING',
    'SETTLING',
    'PAID_OUT',
    'RECONCILED',
    'REFUNDING',
    'PENDING_RETRY',
    'NEEDS_ATTENTION',
    'REFUNDED',
    'FAILED',
    'IN_DOUBT',
  ])
  .check(
    z.meta({
      id: 'PaymentState',
      description: 'RECONCILED, REFUNDED, FAILED are terminal; IN_DOUBT and NEEDS_ATTENTION need a person; the others are in flight.',
    }),
  ));
export type PaymentState = z.infer<typeof PaymentState>;

/** 202 of POST /transactions. */
export const TransactionAccepted = /* @__PURE__ */ schema(() => z
  .object({
    transactionId: z.string().check(z.meta({ description: 'Equals the idempotency key.' })),
    status: PaymentState.check(
      z.meta({
        description:
          'The payment state when the request was answered (our choice: the contract names the field without its values). Read the outcome from GET /transactions/{transactionId}.',
      }),
    ),
  })
  .check(z.meta({ id: 'TransactionAccepted' })));
export type TransactionAccepted = z.infer<typeof TransactionAccepted>;

/**
 * The payout delta object. Its fields are not shown by the contract: we chose the quoted and the paid
 * receive amounts and their signed difference, all in the destination currency.
 */
export const PayoutDelta = /* @__PURE__ */ schema(() => z
  .object({
    quoted: Money.check(z.meta({ description: 'The receive amount that was quoted.' })),
    paid: Money.check(z.meta({ description: 'What the recipient was actually paid.' })),
    difference: Money.check(z.meta({ description: '`paid` minus `quoted`; negative when less was paid.' })),
  })
  .check(
    z.meta({
      id: 'PayoutDelta',
      description:
        'Present only when what was paid differs from what was quoted. Its fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
    }),
  ));
export type PayoutDelta = z.infer<typeof PayoutDelta>;

export const PaymentTimelineEntry = /* @__PURE__ */ schema(() => z
  .object({
    state: PaymentState,
    detail: z.optional(z.string()).check(z.meta({ description: 'Text for people, not to be parsed.' })),
  })
  .check(z.meta({ id: 'PaymentTimelineEntry' })));

export const TransactionStatus = /* @__PURE__ */ schema(() => z
  .object({
    transactionId: z.string().check(z.meta({ description: 'Equals the idempotency key used at creation.' })),
    running: z.boolean().check(z.meta({ description: 'True while in flight; poll about every couple of seconds while true.' })),
    failure: z.optional(z.string()).check(z.meta({ description: 'Set when the payment ended without a result.' })),
    state: z.optional(PaymentState),
    provider: z.optional(z.string()).check(z.meta({ description: 'Opaque route label.' })),
    payoutMode: z.optional(PayoutMode),
    receiveAmount: z.optional(Money).check(z.meta({ description: 'What the recipient received, once known.' })),
    payoutDelta: z.optional(PayoutDelta),
    margin: z.optional(Margin),
    timeline: z.optional(z.array(PaymentTimelineEntry)).check(z.meta({ description: 'Ordered history.' })),
  })
  .check(z.meta({ id: 'TransactionStatus' })));
export type TransactionStatus = z.infer<typeof TransactionStatus>;

/** A row of GET /transactions. Rows carry no state: read it from GET /transactions/{transactionId}. */
export const TransactionListItem = /* @__PURE__ */ schema(() => z
  .object({
    transactionId: z.string(),
    corridor: Corridor,
    sendAmount: Money,
    recipientReference: z.string(),
    createdAt: Timestamp,
  })
  .check(z.meta({ id: 'TransactionListItem', description: 'Rows carry no state.' })));
export type TransactionListItem = z.infer<typeof TransactionListItem>;

export const ListTransactionsQuery = /* @__PURE__ */ schema(() => pageQuery(500));
export type ListTransactionsQuery = z.infer<typeof ListTransactionsQuery>;

export const TransactionList = /* @__PURE__ */ schema(() => z.object({ transactions: z.array(TransactionListItem), ...PageFields }).check(z.meta({ id: 'TransactionList' })));
export type TransactionList = z.infer<typeof TransactionList>;

export const TransactionParams = /* @__PURE__ */ schema(() => z.object({ transactionId: PathId }));
export type TransactionParams = z.infer<typeof TransactionParams>;
