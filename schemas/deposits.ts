import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { DecimalAmount, DecimalString, IdempotencyKey, Money, PageFields, PathId, Timestamp, amountString, pageQuery } from './common.ts';

/** The PIX amount pattern: BRL with at most two decimals; bounded like every decimal string (docs/decisions/007, 072). */
const BrlAmount = /* @__PURE__ */ schema(() => amountString(/^\d+(\.\d{1,2})?$/, 'must be a BRL amount with at most two decimals'));

// ---- Bank deposit instructions ------------------------------------------------------------

/** A field of a house account: present only when held, so never empty. */
const HeldField = /* @__PURE__ */ schema(() => z.string().check(z.minLength(1)));

export const DepositInstructions = /* @__PURE__ */ schema(() => z
  .object({
    reference: z.string().check(
      z.regex(/^REF[0-7][0-9A-HJKMNP-TV-Z]{26}$/),
      z.meta({
        description:
          'One per organization, stable, identical for every currency; carries a check character; not a secret. `REF`, 26 characters ' +
          "of Crockford's base 32 and one check character (Damm over GF(32)): any single changed character or swap of two neighbours " +
          'is refused, so a mangled reference never credits anyone. Letter case, spaces and hyphens are not significant.',
        example: 'REF01JDQ8V3ZK7M2A9X4B6C8D0E1F4',
      }),
    ),
    accounts: z
      .array(
        z.object({
          currency: z.enum(['USD', 'EUR']),
          accountName: HeldField.check(z.meta({ description: "The beneficiary is the service's own legal entity." })),
          bankName: z.optional(HeldField),
          iban: z.optional(HeldField),
          accountNumber: z.optional(HeldField),
          bic: z.optional(HeldField),
          bankAddress: z.optional(HeldField),
        }),
      )
      .check(
        z.meta({
          description:
            'A field that is not held is omitted, never sent empty; a currency with no configured account is absent. Send each currency to its own account.',
        }),
      ),
  })
  .check(z.meta({ id: 'DepositInstructions' })));
export type DepositInstructions = z.infer<typeof DepositInstructions>;

// ---- Wire on-ramp -------------------------------------------------------------------------

export const OnRampQuoteQuery = /* @__PURE__ */ schema(() => z.object({
  amount: DecimalString,
  currency: z.string().check(z.minLength(1), z.maxLength(16), z.meta({ description: 'The fiat wired.' })),
}));
export type OnRampQuoteQuery = z.infer<typeof OnRampQuoteQuery>;

export const OnRampQuote = /* @__PURE__ */ schema(() => z
  .object({
    atPar: z.boolean(),
    sent: Money,
    targetStablecoin: z.string(),
    feeBps: z.number(),
    deliveryFee: Money.check(z.meta({ description: 'Deducted from what is received.' })),
    deliveryMethod: z.enum(['mint+transfer', 'transfer']),
    minimum: Money.check(z.meta({ description: 'A quote below the minimum is not an error.' })),
    gross: z.optional(Money),
    fee: z.optional(Money),
    net: z.optional(Money),
  })
  .check(
    z.meta({
      id: 'OnRampQuote',
      description: '`gross`, `fee` and `net` are present only for USD (at par, one-for-one with USDC); for EUR they are omitted.',
    }),
  ));
export type OnRampQuote = z.infer<typeof OnRampQuote>;

/** POST /treasury/onramp: unknown fields are ignored (stripped). */
export const CreateOnRampBody = /* @__PURE__ */ schema(() => z
  .object({
    idempotencyKey: IdempotencyKey.check(z.meta({ description: 'Becomes the on-ramp id.' })),
    amount: DecimalAmount.check(z.meta({ description: 'At least the quoted minimum; below it gives 400 `validation`.' })),
    targetStablecoin: z._default(z.literal('USDC'), 'USDC'),
    destinationAddress: z.optional(z.string().check(z.minLength(1), z.maxLength(200))).check(
      z.meta({
        description: 'Ignored: USDC always goes to the home wallet.',
      }),
    ),
  })
  .check(z.meta({ id: 'CreateOnRampRequest' })));
export type CreateOnRampBody = z.infer<typeof CreateOnRampBody>;

export const OnRampState = /* @__PURE__ */ schema(() => z.enum(['FAILED', 'IN_DOUBT', 'REFUNDED', 'DELIVERED', 'EXPIRED']).check(
  z.meta({
    id: 'OnRampState',
    description: 'How a deposit ended.',
  }),
));
export type OnRampState = z.infer<typeof OnRampState>;

export const OnRampStage = /* @__PURE__ */ schema(() => z
  .enum([
    'OPENING_COLLECTION',
    'AWAITING_PAYMENT',
    'PAYMENT_RECEIVED',
    'FORWARDING',
    'CONVERTING',
    'DELIVERING',
    'FAILED',
    'IN_DOUBT',
    'REFUNDED',
    'DELIVERED',
    'EXPIRED',
  ])
  .check(z.meta({ id: 'OnRampStage', description: 'Where a deposit is now: an in-flight stage or one of the end states.' })));
export type OnRampStage = z.infer<typeof OnRampStage>;

export const WireOnRampInstructions = /* @__PURE__ */ schema(() => z
  .object({
    reference: z.string(),
    accountName: z.string(),
    iban: z.optional(z.string()),
    accountNumber: z.optional(z.string()),
    bic: z.optional(z.string()),
  })
  .check(z.meta({ id: 'WireOnRampInstructions', description: 'Only fields actually held are present.' })));

export const PixOnRampInstructions = /* @__PURE__ */ schema(() => z
  .object({
    reference: z.string(),
    brCode: z.string().check(z.meta({ description: 'Show as a QR code.' })),
    pay: Money.check(z.meta({ description: 'BRL to pay.' })),
    receive: Money.check(z.meta({ description: 'USDC to receive.' })),
    expiresAt: Timestamp,
  })
  .check(z.meta({ id: 'PixOnRampInstructions' })));

export const OnRampInstructions = /* @__PURE__ */ schema(() => z.union([WireOnRampInstructions, PixOnRampInstructions]).check(z.meta({ id: 'OnRampInstructions' })));
export type OnRampInstructions = z.infer<typeof OnRampInstructions>;

/**
 * 202 of POST /treasury/onramp and /treasury/onramp/pix. `status` is named without its values by the
 * contract: we answer the deposit's stage at that moment.
 */
export const OnRampAccepted = /* @__PURE__ */ schema(() => z
  .object({
    onRampId: z.string(),
    status: OnRampStage,
    instructions: z.optional(OnRampInstructions).check(z.meta({ description: 'Absent when the environment cannot produce them.' })),
  })
  .check(z.meta({ id: 'OnRampAccepted', description: "`status` is the deposit's stage when answered (our choice of values)." })));
export type OnRampAccepted = z.infer<typeof OnRampAccepted>;

export const OnRampOrigin = /* @__PURE__ */ schema(() => z.enum(['api', 'deposit', 'pix']).check(
  z.meta({
    id: 'OnRampOrigin',
    description:
      '`api`: started by POST /treasury/onramp; `deposit`: a wire that arrived quoting the reference (id prefix `dep-`); `pix`: started by POST /treasury/onramp/pix.',
  }),
));

export const ListOnRampsQuery = /* @__PURE__ */ schema(() => z.extend(pageQuery(500), { origin: z.optional(OnRampOrigin) }));
export type ListOnRampsQuery = z.infer<typeof ListOnRampsQuery>;

/** Rows of GET /treasury/onramps are not shown by the contract; ours mirror payment rows (no state). */
export const OnRampListItem = /* @__PURE__ */ schema(() => z
  .object({
    onRampId: z.string(),
    origin: OnRampOrigin,
    amount: Money.check(z.meta({ description: 'The fiat amount asked for, or received for a `deposit` row.' })),
    targetStablecoin: z.string(),
    createdAt: Timestamp,
  })
  .check(
    z.meta({
      id: 'OnRampListItem',
      description: 'Rows carry no state. Fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
    }),
  ));
export type OnRampListItem = z.infer<typeof OnRampListItem>;

export const OnRampList = /* @__PURE__ */ schema(() => z.object({ onramps: z.array(OnRampListItem), ...PageFields }).check(z.meta({ id: 'OnRampList' })));
export type OnRampList = z.infer<typeof OnRampList>;

export const OnRampStatus = /* @__PURE__ */ schema(() => z
  .object({
    onRampId: z.string(),
    running: z.boolean(),
    failure: z.optional(z.string()),
    state: z.optional(OnRampState),
    stage: z.optional(OnRampStage),
    timeline: z.optional(z.array(z.object({ stage: OnRampStage, at: Timestamp }))),
    gross: z.optional(Money),
    fee: z.optional(Money),
    net: z.optional(Money),
    feeBps: z.optional(z.number()),
    fxProvider: z.optional(z.string()),
    deliveryMethod: z.optional(z.enum(['provider', 'mint+transfer', 'transfer', 'mint'])),
    txHash: z.optional(z.string()).check(z.meta({ description: 'On-chain transaction.' })),
    instructions: z.optional(OnRampInstructions),
  })
  .check(z.meta({ id: 'OnRampStatus' })));
export type OnRampStatus = z.infer<typeof OnRampStatus>;

export const OnRampParams = /* @__PURE__ */ schema(() => z.object({ onRampId: PathId }));
export type OnRampParams = z.infer<typeof OnRampParams>;

// ---- PIX on-ramp --------------------------------------------------------------------------

export const PixOnRampQuoteQuery = /* @__PURE__ */ schema(() => z.object({
  amount: BrlAmount,
  currency: z._default(z.literal('BRL'), 'BRL'),
}));
export type PixOnRampQuoteQuery = z.infer<typeof PixOnRampQuoteQuery>;

export const PixOnRampQuote = /* @__PURE__ */ schema(() => z
  .object({
    sent: Money,
    targetStablecoin: z.string(),
    feeBps: z.number(),
    chain: z
      .string()
      .check(z.meta({ description: "The home wallet's network, where the USDC is delivered; `unknown` while there is none (then `available` is false)." })),
    available: z.boolean().check(z.meta({ description: 'False comes with a `reason`.' })),
    minimum: Money,
    maximum: z.optional(Money),
    autoPaidBelow: z.optional(Money).check(
      z.meta({
        description: 'Type not given by the contract; a money object is our choice (docs/decisions/030).',
      }),
    ),
    reason: z.optional(z.string()),
    basePrice: z.optional(z.string()),
    indicative: z.optional(z.boolean()).check(z.meta({ description: 'The price is live but fixed only when the code is opened.' })),
    net: z.optional(Money),
    fee: z.optional(Money),
    providerFees: z.optional(Money).check(
      z.meta({
        description: 'Type not given by the contract; a money object is our choice (docs/decisions/030).',
      }),
    ),
    provider: z.optional(z.string()),
  })
  .check(z.meta({ id: 'PixOnRampQuote', description: 'Amounts outside minimum and maximum give 400 when opening a code.' })));
export type PixOnRampQuote = z.infer<typeof PixOnRampQuote>;

/** POST /treasury/onramp/pix: strict, nested amount included (an unknown field anywhere gives 400). */
export const CreatePixOnRampBody = /* @__PURE__ */ schema(() => z
  .strictObject({
    idempotencyKey: IdempotencyKey.check(z.meta({ description: 'Becomes the on-ramp id; a retry returns the same code.' })),
    amount: z.strictObject({
      amount: BrlAmount.check(z.meta({ description: 'Within the quoted limits.' })),
      currency: z._default(z.literal('BRL'), 'BRL'),
    }),
  })
  .check(z.meta({ id: 'CreatePixOnRampRequest' })));
export type CreatePixOnRampBody = z.infer<typeof CreatePixOnRampBody>;

export const PixOnRampAccepted = /* @__PURE__ */ schema(() => z
  .object({
    onRampId: z.string(),
    status: OnRampStage,
    instructions: z.optional(PixOnRampInstructions),
  })
  .check(z.meta({ id: 'PixOnRampAccepted', description: "`status` is the deposit's stage when answered (our choice of values)." })));
export type PixOnRampAccepted = z.infer<typeof PixOnRampAccepted>;

// ---- Crypto deposits ----------------------------------------------------------------------

export const CryptoDepositAddresses = /* @__PURE__ */ schema(() => z
  .object({
    currency: z.string().check(z.meta({ description: 'USDC.' })),
    address: z.optional(z.string().check(z.minLength(1))).check(z.meta({ description: 'Present when all networks share one address.' })),
    networks: z.array(
      z.object({
        network: z.string().check(z.minLength(1)),
        address: z
          .string()
          .check(z.minLength(1), z.meta({ description: "In the network's own format: `0x` + 40 hex on EVM networks, base58 on Solana and Tron." })),
        home: z.boolean().check(z.meta({ description: 'USDC sent here is credited as is; elsewhere it is moved home, less the move fee.' })),
        fee: z
          .optional(Money)
          .check(
            z.meta({ description: 'Estimate of the move fee home, deducted from the deposit: the crossing fee quotes charge today; 0 on the home network.' }),
          ),
        feeUnavailable: z.optional(z.string()).check(z.meta({ description: 'Why there is no fee estimate.' })),
      }),
    ),
    quotedAt: Money.check(z.meta({ description: 'The deposit size the fees are priced for.' })),
  })
  .check(z.meta({ id: 'CryptoDepositAddresses', description: 'Only USDC on a listed network is supported.' })));
export type CryptoDepositAddresses = z.infer<typeof CryptoDepositAddresses>;
