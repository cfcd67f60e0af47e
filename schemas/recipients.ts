import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { CountryCode, PathId, Timestamp, plainText } from './common.ts';

export const RecipientType = /* @__PURE__ */ schema(() => z.enum(['wallet', 'bank']).check(z.meta({ id: 'RecipientType', description: 'Cannot change after creation.' })));
export type RecipientType = z.infer<typeof RecipientType>;

/** The optional fields of a saved recipient with their bounds; create and update share them. */
const recipientFields = /* @__PURE__ */ schema(() => ({
  account: plainText(140),
  bankCode: plainText(40),
  bic: plainText(11, 8),
  bankName: plainText(200),
  country: CountryCode,
  city: plainText(120),
  addressLine: plainText(280),
  state: plainText(100),
  postalCode: plainText(20),
  phoneCallingCode: z.string().check(z.regex(/^\+?\d{1,4}$/)),
  phoneNumber: z.string().check(z.regex(/^\d{4,15}$/)),
  address: plainText(200).check(z.meta({ description: 'Wallet address.' })),
  networkId: plainText(60),
}));
export type RecipientField = keyof typeof recipientFields;
/** The optional fields' names, in contract order: the store keeps each of them, null when unset. */
export const recipientFieldNames = /* @__PURE__ */ schema(() => Object.keys(recipientFields) as RecipientField[]);

const RecipientName = /* @__PURE__ */ schema(() => plainText(200));

/** POST /recipients: strict (an unknown field gives 400). */
export const CreateRecipientBody = /* @__PURE__ */ schema(() => z
  .strictObject({
    name: RecipientName,
    type: RecipientType,
    ...(Object.fromEntries(Object.entries(recipientFields).map(([key, schema]) => [key, z.optional(schema)])) as {
      [K in RecipientField]: z.ZodMiniOptional<(typeof recipientFields)[K]>;
    }),
  })
  .check(
    // The contract's own rule; without it a saved recipient could not be paid.
    z.superRefine((body, context) => {
      if (body.type === 'bank' && body.account === undefined) {
        context.addIssue({ code: 'custom', path: ['account'], message: 'a bank recipient needs an account' });
      }
      if (body.type === 'wallet' && body.address === undefined) {
        context.addIssue({ code: 'custom', path: ['address'], message: 'a wallet recipient needs an address' });
      }
    }),
    z.meta({
      id: 'CreateRecipientRequest',
      description: 'Strict: an unknown field gives 400. A bank recipient needs `account`; a wallet recipient needs `address`.',
    }),
  ));
export type CreateRecipientBody = z.infer<typeof CreateRecipientBody>;

/** PATCH /recipients/{recipientId}: strict; only the fields to change; null clears; `type` is refused. */
export const UpdateRecipientBody = /* @__PURE__ */ schema(() => z
  .strictObject({
    name: z.optional(RecipientName),
    ...(Object.fromEntries(Object.entries(recipientFields).map(([key, schema]) => [key, z.optional(z.nullable(schema))])) as {
      [K in RecipientField]: z.ZodMiniOptional<z.ZodMiniNullable<(typeof recipientFields)[K]>>;
    }),
  })
  .check(
    z.meta({
      id: 'UpdateRecipientRequest',
      description: 'Strict: only the fields to change; `null` clears a field; `type` cannot change (sending it gives 400).',
    }),
  ));
export type UpdateRecipientBody = z.infer<typeof UpdateRecipientBody>;

export const Recipient = /* @__PURE__ */ schema(() => z
  .object({
    id: z.string(),
    name: z.string(),
    type: RecipientType,
    ...(Object.fromEntries(Object.keys(recipientFields).map((key) => [key, z.nullable(z.string())])) as {
      [K in RecipientField]: z.ZodMiniNullable<z.ZodMiniString<string>>;
    }),
    lastUsedAt: z.nullable(Timestamp),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .check(z.meta({ id: 'Recipient', description: 'A saved recipient. Every field is present; an unset one is null.' })));
export type Recipient = z.infer<typeof Recipient>;

export const RecipientList = /* @__PURE__ */ schema(() => z
  .object({ recipients: z.array(Recipient), count: z.number().check(z.int(), z.minimum(0)) })
  .check(z.meta({ id: 'RecipientList' })));
export type RecipientList = z.infer<typeof RecipientList>;

export const RecipientParams = /* @__PURE__ */ schema(() => z.object({ recipientId: PathId }));
export type RecipientParams = z.infer<typeof RecipientParams>;
