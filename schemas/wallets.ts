import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { PathId, Timestamp } from './common.ts';

/** An integer amount in units of 10^-scale, as in money objects, without the currency beside it. */
const MinorUnits = /* @__PURE__ */ schema(() => z.string().check(z.regex(/^\d+$/)));

export const Balance = /* @__PURE__ */ schema(() => z
  .object({
    currency: z.string(),
    scale: z.literal(6).check(z.meta({ description: 'Always 6.' })),
    available: MinorUnits.check(z.meta({ description: 'Spendable now.' })),
    settling: MinorUnits.check(
      z.meta({
        description: 'USDC that arrived on another network and is moving to the home wallet.',
      }),
    ),
    total: MinorUnits.check(z.meta({ description: '`available` plus `settling`.' })),
    complete: z.boolean().check(z.meta({ description: 'False means a read failed and the figures are a floor.' })),
    reportedAt: Timestamp,
  })
  .check(z.meta({ id: 'Balance' })));
export type Balance = z.infer<typeof Balance>;

/**
 * Values of the account kind are not shown by the contract. Ours name where the account is held:
 * `wallet` at a wallet provider (GET /wallets), `issuer_account` at a stablecoin issuer (GET /issuers/accounts).
 */
export const WalletAccountKind = /* @__PURE__ */ schema(() => z.enum(['wallet', 'issuer_account']).check(
  z.meta({
    id: 'WalletAccountKind',
    description:
      'Values are not shown by the contract; ours (docs/decisions/030): `wallet` is held at a wallet provider, `issuer_account` at a stablecoin issuer.',
  }),
));
export type WalletAccountKind = z.infer<typeof WalletAccountKind>;

/**
 * The contract shows `active` and `disabled`. `provisioning` is ours (docs/decisions/022): a wallet
 * the custody provider has not opened yet, seconds long in `simulated`; it has no `externalId`,
 * `address` or `chain` until it is active.
 */
export const WalletAccountStatus = /* @__PURE__ */ schema(() => z.enum(['active', 'disabled', 'provisioning']).check(
  z.meta({
    id: 'WalletAccountStatus',
    description:
      '`active` or `disabled` (the contract); `provisioning` is ours (docs/decisions/022, 052): not yet opened at the provider, no `externalId`, `address` or `chain` yet.',
  }),
));
export type WalletAccountStatus = z.infer<typeof WalletAccountStatus>;

export const WalletAccount = /* @__PURE__ */ schema(() => z
  .object({
    id: z.string(),
    kind: WalletAccountKind,
    provider: z.string(),
    externalId: z
      .nullable(z.string())
      .check(z.meta({ description: "The provider's own handle for the account. Null only while `provisioning` (docs/decisions/052)." })),
    label: z.nullable(z.string()),
    currencies: z.array(z.string()),
    address: z.nullable(z.string()),
    chain: z.nullable(z.string()),
    status: WalletAccountStatus,
    createdAt: Timestamp,
  })
  .check(z.meta({ id: 'WalletAccount', description: 'A wallet or issuer account.' })));
export type WalletAccount = z.infer<typeof WalletAccount>;

export const WalletAccountList = /* @__PURE__ */ schema(() => z
  .object({ accounts: z.array(WalletAccount), count: z.number().check(z.int(), z.minimum(0)) })
  .check(z.meta({ id: 'WalletAccountList' })));
export type WalletAccountList = z.infer<typeof WalletAccountList>;

/**
 * Entries of a wallet's reported balances are not shown by the contract. Ours follow the balance that
 * POST /wallets/{walletId}/topup-eurc returns (`asset`, `amount`, `scale`), plus the chain it is held on.
 */
export const WalletBalanceEntry = /* @__PURE__ */ schema(() => z
  .object({
    asset: z.string().check(z.meta({ description: 'Currency or stablecoin code.' })),
    amount: MinorUnits.check(z.meta({ description: 'Integer in units of 10^-scale.' })),
    scale: z.number().check(z.int(), z.minimum(0)),
    chain: z.nullable(z.string()).check(z.meta({ description: 'Network the asset is held on; null for off-chain balances.' })),
  })
  .check(
    z.meta({
      id: 'WalletBalanceEntry',
      description: 'Fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
    }),
  ));
export type WalletBalanceEntry = z.infer<typeof WalletBalanceEntry>;

export const WalletBalances = /* @__PURE__ */ schema(() => z
  .object({
    walletId: z.string(),
    balances: z.array(WalletBalanceEntry).check(z.meta({ description: "The wallet provider's report, as reported." })),
  })
  .check(z.meta({ id: 'WalletBalances' })));
export type WalletBalances = z.infer<typeof WalletBalances>;

/** Issuer catalogue entries are not shown by the contract; ours say who issues what, and where. */
export const Issuer = /* @__PURE__ */ schema(() => z
  .object({
    id: z.string(),
    name: z.string(),
    currencies: z.array(z.string()).check(z.meta({ description: 'Stablecoins the issuer mints.' })),
    chains: z.array(z.string()).check(z.meta({ description: 'Networks those stablecoins are issued on.' })),
  })
  .check(
    z.meta({
      id: 'Issuer',
      description: 'Issuer catalogue entry. Fields are not shown by the contract; this shape is our choice (docs/decisions/030).',
    }),
  ));
export type Issuer = z.infer<typeof Issuer>;

export const IssuerList = /* @__PURE__ */ schema(() => z
  .object({ issuers: z.array(Issuer), count: z.number().check(z.int(), z.minimum(0)) })
  .check(z.meta({ id: 'IssuerList' })));
export type IssuerList = z.infer<typeof IssuerList>;

export const WalletParams = /* @__PURE__ */ schema(() => z.object({
  walletId: PathId.check(z.meta({ description: "The service's id or the wallet's `externalId`." })),
}));
export type WalletParams = z.infer<typeof WalletParams>;

export const IssuerParams = /* @__PURE__ */ schema(() => z.object({ issuerId: PathId }));
export type IssuerParams = z.infer<typeof IssuerParams>;
