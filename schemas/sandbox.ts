import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { CountryCode, DecimalAmount, DecimalString, Money, PathId, amountString } from './common.ts';
import { CreateBeneficiaryBody } from './offramps.ts';
import { Beneficiary } from './transactions.ts';

/** Sandbox tools answer 501 on any environment other than a sandbox. */

export const SimulateOnRampPaymentParams = /* @__PURE__ */ schema(() => z.object({ onRampId: PathId }));
export type SimulateOnRampPaymentParams = z.infer<typeof SimulateOnRampPaymentParams>;

export const SimulatedOnRampPayment = /* @__PURE__ */ schema(() => z
  .object({ onRampId: z.string(), simulated: z.boolean(), detail: z.string() })
  .check(z.meta({ id: 'SimulatedOnRampPayment', description: 'Only the payer is faked; the deposit runs as a real one.' })));
export type SimulatedOnRampPayment = z.infer<typeof SimulatedOnRampPayment>;

/** POST /treasury/onramps/simulate-wire: strict, nested amount included. */
export const SimulateWireBody = /* @__PURE__ */ schema(() => z.strictObject({ amount: z.strictObject(DecimalAmount.shape) }).check(z.meta({ id: 'SimulateWireRequest' })));
export type SimulateWireBody = z.infer<typeof SimulateWireBody>;

export const SimulatedWire = /* @__PURE__ */ schema(() => z
  .object({
    simulated: z.boolean(),
    reference: z.string().check(z.meta({ description: "The organization's reference the wire quoted." })),
    amount: Money,
    statementLineId: z.string(),
    onRampId: z.nullable(z.string()).check(
      z.meta({
        description: 'The deposit the wire started or matched; null while none is attributed (`parked`). Nullability is our choice.',
      }),
    ),
    disposition: z.enum(['pending', 'attributed', 'parked']),
    detail: z.string(),
  })
  .check(z.meta({ id: 'SimulatedWire', description: 'Matched and converted as a real wire.' })));
export type SimulatedWire = z.infer<typeof SimulatedWire>;

/**
 * The sandbox outcome band is not shown by the contract. Ours: which operation ends in which state
 * when its amount carries which cents, so a tester can aim at a refund or an in-doubt on purpose.
 */
export const SandboxOutcomeBand = /* @__PURE__ */ schema(() => z
  .object({
    operation: z.enum(['payment', 'onramp', 'withdrawal', 'offramp']),
    currency: z.string().check(z.meta({ description: 'The currency whose cents choose the band: USDC sent, or the fiat deposited for an on-ramp.' })),
    cents: z
      .string()
      .check(z.regex(/^\d{2}$/), z.meta({ description: 'The two decimal digits after the point: 100.91 is band `91`. Any other cents run the normal path.' })),
    example: DecimalString.check(z.meta({ description: 'An amount in the band.' })),
    outcome: z.string().check(z.meta({ description: 'The final state an operation in this band reaches, e.g. `REFUNDED`, `IN_DOUBT`.' })),
    detail: z.string(),
  })
  .check(
    z.meta({
      id: 'SandboxOutcomeBand',
      description: 'Fields are not shown by the contract; this shape is our choice (docs/decisions/030, 062).',
    }),
  ));
export type SandboxOutcomeBand = z.infer<typeof SandboxOutcomeBand>;

export const SandboxPrefill = /* @__PURE__ */ schema(() => z
  .object({
    payouts: z.array(
      z.object({
        corridor: z.object({ to: z.string(), destinationCountry: CountryCode }),
        sendAmount: DecimalAmount,
        beneficiary: Beneficiary.check(
          z.meta({
            description: 'The sandbox beneficiary: not shown by the contract; ours is the payment beneficiary, ready to send (docs/decisions/030).',
          }),
        ),
        recipientReference: z.string(),
      }),
    ),
    offrampBeneficiaries: z.array(CreateBeneficiaryBody).check(
      z.meta({
        description: 'Sandbox off-ramp beneficiaries: not shown by the contract; ours are bodies for POST /treasury/beneficiaries (docs/decisions/030).',
      }),
    ),
    bands: z.array(SandboxOutcomeBand),
    notes: z.array(z.string()),
  })
  .check(z.meta({ id: 'SandboxPrefill', description: 'Values are not real.' })));
export type SandboxPrefill = z.infer<typeof SandboxPrefill>;

/** POST /wallets/{walletId}/topup-eurc: strict. */
export const TopUpEurcBody = /* @__PURE__ */ schema(() => z
  .strictObject({ amount: amountString(/^\d+(\.\d{1,2})?$/, 'must be an amount with at most two decimals') })
  .check(z.meta({ id: 'TopUpEurcRequest', description: 'Credits a simulated EURC balance one-for-one.' })));
export type TopUpEurcBody = z.infer<typeof TopUpEurcBody>;

export const EurcTopUp = /* @__PURE__ */ schema(() => z
  .object({
    walletId: z.string(),
    balance: z.object({
      asset: z.string(),
      amount: z.string().check(z.regex(/^\d+$/), z.meta({ description: 'Integer in units of 10^-scale.' })),
      scale: z.literal(6),
    }),
  })
  .check(z.meta({ id: 'EurcTopUp' })));
export type EurcTopUp = z.infer<typeof EurcTopUp>;
