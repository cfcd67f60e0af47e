import * as z from 'zod';
import { DecimalAmount, DecimalString, IdempotencyKey, Money, PageFields, PathId, Timestamp, amountString, pageQuery } from './common.ts';

/** The PIX amount pattern: BRL with at most two decimals; bounded like every decimal string (docs/decisions/007, 072). */
const BrlAmount = /* @__PURE__ */ amountString(/^\d+(\.\d{1,2})?$/, 'must be a BRL amount with at most two decimals');

// ---- Bank deposit instructions ------------------------------------------------------------

/** A field of a house account: present only when held, so never empty. */
const HeldField = /* @__PURE__ */ z.string().min(1);

export const DepositInstructions = /* @__PURE__ */ z
  .object({
    reference: z
      .string()
      .regex(/^REF[0-7][0-9A-HJKMNP-TV-Z]{26}$/)
      .meta({
        description:
          'One per organization, stable, identical for every currency; carries a check character; not a secret. `REF`, 26 characters ' +
          "of Crockford's base 32 and one check character (Damm over GF(32)): any single changed character or swap of two neighbours " +
          'is refused, so a mangled reference never credits anyone. Letter case, spaces and hyphens are not significant.',
        example: 'REF01JDQ8V3ZK7M2A9X4B6C8D0E1F4',
      }),
    accounts: z
      .array(
        z.object({
          currency: z.enum(['USD', 'EUR']),
          accountName: HeldField.meta({ description: "The beneficiary is the service's own legal entity." }),
          bankName: HeldField.optional(),
          iban: HeldField.optional(),
          accountNumber: HeldField.optional(),
          bic: HeldField.optional(),
          bankAddress: HeldField.optional(),
        }),
      )
      .meta({
        description:
          'A field that is not held is omitted, never sent empty; a currency with no configured account is absent. Send each currency to its own account.',
      }),
  })
  .meta({ id: 'DepositInstructions' });
export type DepositInstructions = z.infer<typeof DepositInstructions>;

// ---- Wire on-ramp -------------------------------------------------------------------------

export const OnRampQuoteQuery = /* @__PURE__ */ z.object({
  amount: DecimalString,
  currency: z.string().min(1).max(16).meta({ description: 'The fiat wired.' }),
});
export type OnRampQuoteQuery = z.infer<typeof OnRampQuoteQuery>;

export const OnRampQuote = /* @__PURE__ */ z
  .object({
    atPar: z.boolean(),
    sent: Money,
    targetStablecoin: z.string(),
    feeBps: z.number(),
    deliveryFee: Money.meta({ description: 'Deducted from what is received.' }),
    deliveryMethod: z.enum(['mint+transfer', 'transfer']),
    minimum: Money.meta({ description: 'A quote below the minimum is not an error.' }),
    gross: Money.optional(),
    fee: Money.optional(),
    net: Money.optional(),
  })
  .meta({
    id: 'OnRampQuote',
    description: '`gross`, `fee` and `net` are present only for USD (at par, one-for-one with USDC); for EUR they are omitted.',
  });
export type OnRampQuote = z.infer<typeof OnRampQuote>;

/** POST /treasury/onramp: unknown fields are ignored (stripped). */
export const CreateOnRampBody = /* @__PURE__ */ z
  .object({
    idempotencyKey: IdempotencyKey.meta({ description: 'Becomes the on-ramp id.' }),
    amount: DecimalAmount.meta({ description: 'At least the quoted minimum; below it gives 400 `validation`.' }),
    targetStablecoin: z.literal('USDC').default('USDC'),
    destinationAddress: z.string().min(1).max(200).optional().meta({
      description: 'Ignored: USDC always goes to the home wallet.',
    }),
  })
  .meta({ id: 'CreateOnRampRequest' });
export type CreateOnRampBody = z.infer<typeof CreateOnRampBody>;

export const OnRampState = /* @__PURE__ */ z.enum(['FAILED', 'IN_DOUBT', 'REFUNDED', 'DELIVERED', 'EXPIRED']).meta({
  id: 'OnRampState',
  description: 'How a deposit ended.',
});
export type OnRampState = z.infer<typeof OnRampState>;

export const OnRampStage = /* @__PURE__ */ z
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
  .meta({ id: 'OnRampStage', description: 'Where a deposit is now: an in-flight stage or one of the end states.' });
export type OnRampStage = z.infer<typeof OnRampStage>;

export const WireOnRampInstructions = /* @__PURE__ */ z
  .object({
    reference: z.string(),
    accountName: z.string(),
    iban: z.string().optional(),
    accountNumber: z.string().optional(),
    bic: z.string().optional(),
  })
  .meta({ id: 'WireOnRampInstructions', description: 'Only fields actually held are present.' });

export const PixOnRampInstructions = /* @__PURE__ */ z
  .object({
    reference: z.string(),
    brCode: z.string().meta({ description: 'Show as a QR code.' }),
    pay: Money.meta({ description: 'BRL to pay.' }),
    receive: Money.meta({ description: 'USDC to receive.' }),
    expiresAt: Timestamp,
  })
  .meta({ id: 'PixOnRampInstructions' });

export const OnRampInstructions = /* @__PURE__ */ z.union([WireOnRampInstructions, PixOnRampInstructions]).meta({ id: 'OnRampInstructions' });
export type OnRampInstructions = z.infer<typeof OnRampInstructions>;

/**
 * 202 of POST /treasury/onramp and /treasury/onramp/pix. `status` is named without its values by the
 * contract: we answer the deposit's stage at that moment.
 */
export const OnRampAccepted = /* @__PURE__ */ z
  .object({
    onRampId: z.string(),
    status: OnRampStage,
    instructions: OnRampInstructions.optional().meta({ description: 'Absent when the environment cannot produce them.' }),
  })
  .meta({ id: 'OnRampAccepted', description: '`status` is the deposit\'s stage when answered (our choice of values).' });
export type OnRampAccepted = z.infer<typeof OnRampAccepted>;

export const OnRampOrigin = /* @__PURE__ */ z.enum(['api', 'deposit', 'pix']).meta({
  id: 'OnRampOrigin',
  description:
    '`api`: started by POST /treasury/onramp; `deposit`: a wire that arrived quoting the reference (id prefix `dep-`); `pix`: started by POST /treasury/onramp/pix.',
});

export const ListOnRampsQuery = /* @__PURE__ */ pageQuery(500).extend({ origin: OnRampOrigin.optional() });
export type ListOnRampsQuery = z.infer<typeof ListOnRampsQuery>;

/** Rows of GET /treasury/onramps are not shown by the contract; ours mirror payment rows (no state). */
export const OnRampListItem = /* @__PURE__ */ z
  .object({
    onRampId: z.string(),
    origin: OnRampOrigin,
    amount: Money.meta({ description: 'The fiat amount asked for, or received for a `deposit` row.' }),
    targetStablecoin: z.string(),
    createdAt: Timestamp,
  })
  .meta({
    id: 'OnRampListItem',
    description: 'Rows carry no state. Fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
  });
export type OnRampListItem = z.infer<typeof OnRampListItem>;

export const OnRampList = /* @__PURE__ */ z.object({ onramps: z.array(OnRampListItem), ...PageFields }).meta({ id: 'OnRampList' });
export type OnRampList = z.infer<typeof OnRampList>;

export const OnRampStatus = /* @__PURE__ */ z
  .object({
    onRampId: z.string(),
    running: z.boolean(),
    failure: z.string().optional(),
    state: OnRampState.optional(),
    stage: OnRampStage.optional(),
    timeline: z.array(z.object({ stage: OnRampStage, at: Timestamp })).optional(),
    gross: Money.optional(),
    fee: Money.optional(),
    net: Money.optional(),
    feeBps: z.number().optional(),
    fxProvider: z.string().optional(),
    deliveryMethod: z.enum(['provider', 'mint+transfer', 'transfer', 'mint']).optional(),
    txHash: z.string().optional().meta({ description: 'On-chain transaction.' }),
    instructions: OnRampInstructions.optional(),
  })
  .meta({ id: 'OnRampStatus' });
export type OnRampStatus = z.infer<typeof OnRampStatus>;

export const OnRampParams = /* @__PURE__ */ z.object({ onRampId: PathId });
export type OnRampParams = z.infer<typeof OnRampParams>;

// ---- PIX on-ramp --------------------------------------------------------------------------

export const PixOnRampQuoteQuery = /* @__PURE__ */ z.object({
  amount: BrlAmount,
  currency: z.literal('BRL').default('BRL'),
});
export type PixOnRampQuoteQuery = z.infer<typeof PixOnRampQuoteQuery>;

export const PixOnRampQuote = /* @__PURE__ */ z
  .object({
    sent: Money,
    targetStablecoin: z.string(),
    feeBps: z.number(),
    chain: z.string().meta({ description: "The home wallet's network, where the USDC is delivered; `unknown` while there is none (then `available` is false)." }),
    available: z.boolean().meta({ description: 'False comes with a `reason`.' }),
    minimum: Money,
    maximum: Money.optional(),
    autoPaidBelow: Money.optional().meta({
      description: 'Type not given by the contract; a money object is our choice (docs/decisions/030).',
    }),
    reason: z.string().optional(),
    basePrice: z.string().optional(),
    indicative: z.boolean().optional().meta({ description: 'The price is live but fixed only when the code is opened.' }),
    net: Money.optional(),
    fee: Money.optional(),
    providerFees: Money.optional().meta({
      description: 'Type not given by the contract; a money object is our choice (docs/decisions/030).',
    }),
    provider: z.string().optional(),
  })
  .meta({ id: 'PixOnRampQuote', description: 'Amounts outside minimum and maximum give 400 when opening a code.' });
export type PixOnRampQuote = z.infer<typeof PixOnRampQuote>;

/** POST /treasury/onramp/pix: strict, nested amount included (an unknown field anywhere gives 400). */
export const CreatePixOnRampBody = /* @__PURE__ */ z
  .object({
    idempotencyKey: IdempotencyKey.meta({ description: 'Becomes the on-ramp id; a retry returns the same code.' }),
    amount: z
      .object({
        amount: BrlAmount.meta({ description: 'Within the quoted limits.' }),
        currency: z.literal('BRL').default('BRL'),
      })
      .strict(),
  })
  .strict()
  .meta({ id: 'CreatePixOnRampRequest' });
export type CreatePixOnRampBody = z.infer<typeof CreatePixOnRampBody>;

export const PixOnRampAccepted = /* @__PURE__ */ z
  .object({
    onRampId: z.string(),
    status: OnRampStage,
    instructions: PixOnRampInstructions.optional(),
  })
  .meta({ id: 'PixOnRampAccepted', description: '`status` is the deposit\'s stage when answered (our choice of values).' });
export type PixOnRampAccepted = z.infer<typeof PixOnRampAccepted>;

// ---- Crypto deposits ----------------------------------------------------------------------

export const CryptoDepositAddresses = /* @__PURE__ */ z
  .object({
    currency: z.string().meta({ description: 'USDC.' }),
    address: z.string().min(1).optional().meta({ description: 'Present when all networks share one address.' }),
    networks: z.array(
      z.object({
        network: z.string().min(1),
        address: z.string().min(1).meta({ description: "In the network's own format: `0x` + 40 hex on EVM networks, base58 on Solana and Tron." }),
        home: z.boolean().meta({ description: 'USDC sent here is credited as is; elsewhere it is moved home, less the move fee.' }),
        fee: Money.optional().meta({ description: 'Estimate of the move fee home, deducted from the deposit: the crossing fee quotes charge today; 0 on the home network.' }),
        feeUnavailable: z.string().optional().meta({ description: 'Why there is no fee estimate.' }),
      }),
    ),
    quotedAt: Money.meta({ description: 'The deposit size the fees are priced for.' }),
  })
  .meta({ id: 'CryptoDepositAddresses', description: 'Only USDC on a listed network is supported.' });
export type CryptoDepositAddresses = z.infer<typeof CryptoDepositAddresses>;
