import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { DecimalString, IdempotencyKey, Money, PageFields, PathId, Timestamp, pageQuery } from './common.ts';

/** A network name as the crypto deposit list gives it. */
const Chain = /* @__PURE__ */ schema(() => z.string().check(z.minLength(1), z.maxLength(40)));

export const WithdrawalQuoteQuery = /* @__PURE__ */ schema(() => z.object({
  amount: DecimalString.check(z.meta({ description: 'USDC.' })),
  chain: Chain.check(z.meta({ description: 'One of the networks of GET /treasury/crypto-deposit.' })),
}));
export type WithdrawalQuoteQuery = z.infer<typeof WithdrawalQuoteQuery>;

export const WithdrawalQuote = /* @__PURE__ */ schema(() => z
  .object({
    amount: Money,
    network: z.string(),
    fee: Money,
    net: Money.check(z.meta({ description: 'What arrives.' })),
  })
  .check(z.meta({ id: 'WithdrawalQuote' })));
export type WithdrawalQuote = z.infer<typeof WithdrawalQuote>;

/** POST /treasury/withdrawals: unknown fields are ignored (stripped). */
export const CreateWithdrawalBody = /* @__PURE__ */ schema(() => z
  .object({
    idempotencyKey: IdempotencyKey.check(z.meta({ description: 'Becomes the withdrawal id.' })),
    amount: z.object({
      amount: DecimalString,
      currency: z.string().check(z.minLength(3), z.maxLength(5), z.meta({ description: 'USDC.' })),
    }),
    chain: Chain,
    toAddress: z.string().check(z.regex(/^0x[0-9a-fA-F]{40}$/), z.meta({ description: 'An own EVM address. An on-chain send cannot be reversed.' })),
  })
  .check(
    z.meta({
      id: 'CreateWithdrawalRequest',
      description: 'Re-priced at send time with no quote id; the fee includes gas headroom.',
    }),
  ));
export type CreateWithdrawalBody = z.infer<typeof CreateWithdrawalBody>;

export const WithdrawalAccepted = /* @__PURE__ */ schema(() => z
  .object({
    withdrawalId: z.string(),
    amount: Money,
    network: z.string(),
    fee: Money.check(z.meta({ description: 'The figure that applied.' })),
    net: Money,
  })
  .check(z.meta({ id: 'WithdrawalAccepted' })));
export type WithdrawalAccepted = z.infer<typeof WithdrawalAccepted>;

export const WithdrawalState = /* @__PURE__ */ schema(() => z
  .enum(['INITIATED', 'PULLING', 'HELD', 'CROSSING', 'SENDING', 'SENT', 'PENDING_RETRY', 'NEEDS_ATTENTION', 'RETURNING', 'RETURNED', 'FAILED', 'IN_DOUBT'])
  .check(
    z.meta({
      id: 'WithdrawalState',
      description:
        'SENT: confirmed on chain, done. IN_DOUBT: cannot tell whether the send landed; a replacement must not be sent. RETURNING/RETURNED: cancelled, USDC going or gone back.',
    }),
  ));
export type WithdrawalState = z.infer<typeof WithdrawalState>;

export const WithdrawalStatus = /* @__PURE__ */ schema(() => z
  .object({
    withdrawalId: z.string(),
    state: WithdrawalState,
    running: z.boolean(),
    timeline: z.array(z.object({ state: WithdrawalState, detail: z.optional(z.string()) })),
    net: z.optional(Money).check(z.meta({ description: 'What arrives.' })),
    txHash: z.optional(z.string()).check(z.meta({ description: 'Present once confirmed on chain.' })),
  })
  .check(z.meta({ id: 'WithdrawalStatus' })));
export type WithdrawalStatus = z.infer<typeof WithdrawalStatus>;

export const ListWithdrawalsQuery = /* @__PURE__ */ schema(() => pageQuery(200, z.string().check(z.minLength(1), z.maxLength(1024))));
export type ListWithdrawalsQuery = z.infer<typeof ListWithdrawalsQuery>;

/** Rows of GET /treasury/withdrawals are not shown by the contract; ours mirror payment rows (no state). */
export const WithdrawalListItem = /* @__PURE__ */ schema(() => z
  .object({
    withdrawalId: z.string(),
    amount: Money,
    network: z.string(),
    toAddress: z.string(),
    createdAt: Timestamp,
  })
  .check(
    z.meta({
      id: 'WithdrawalListItem',
      description: 'Rows carry no state. Fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
    }),
  ));
export type WithdrawalListItem = z.infer<typeof WithdrawalListItem>;

export const WithdrawalList = /* @__PURE__ */ schema(() => z.object({ withdrawals: z.array(WithdrawalListItem), ...PageFields }).check(z.meta({ id: 'WithdrawalList' })));
export type WithdrawalList = z.infer<typeof WithdrawalList>;

export const WithdrawalParams = /* @__PURE__ */ schema(() => z.object({ withdrawalId: PathId }));
export type WithdrawalParams = z.infer<typeof WithdrawalParams>;
