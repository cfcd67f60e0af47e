import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { Money } from './common.ts';

/** Every error body is `{error, message, ...}`; clients branch on `error`. */
export const ErrorBody = /* @__PURE__ */ schema(() => z
  .catchall(
    z.object({
      error: z.string().check(z.meta({ description: 'Machine-readable code; branch on this, never on message.' })),
      message: z.string(),
    }),
    z.unknown(),
  )
  .check(z.meta({ id: 'Error' })));

export const ValidationErrorBody = /* @__PURE__ */ schema(() => z
  .object({
    error: z.literal('validation'),
    message: z.string(),
    issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])), message: z.string() })),
  })
  .check(z.meta({ id: 'ValidationError' })));

export const RateLimitedBody = /* @__PURE__ */ schema(() => z
  .object({
    error: z.literal('rate_limited'),
    message: z.string(),
    retryAfterSeconds: z.number().check(z.int(), z.minimum(1)),
  })
  .check(z.meta({ id: 'RateLimited' })));

export const NotImplementedBody = /* @__PURE__ */ schema(() => z
  .object({
    error: z.literal('not_implemented'),
    message: z.string(),
    feature: z.string(),
    requires: z.optional(z.array(z.string())),
  })
  .check(z.meta({ id: 'NotImplemented' })));

export type ErrorBodyShape = z.infer<typeof ErrorBody>;

/**
 * Every error code of the contract ("Errors" table) with its HTTP status. The OpenAPI document groups
 * each route's codes by this status. The statuses of the four body-parsing codes are not shown by the
 * contract; ours are recorded in docs/decisions/030-contract-shapes-not-shown.md.
 */
export const errorCodeStatus = {
  validation: 400,
  beneficiary_incomplete: 400,
  duplicate_item_ref: 400,
  invalid_cursor: 400,
  invalid_invite: 400,
  invalid_period: 400,
  invalid_query: 400,
  invalid_send_amount: 400,
  unknown_currency: 400,
  unknown_recipient: 400,
  invalid_json: 400,
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  kyb_required: 403,
  compliance_hold: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_key_conflict: 409,
  idempotency_key_reused: 409,
  member_required: 409,
  no_member_email: 409,
  not_simulatable: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  ambiguous_home_wallet: 422,
  insufficient_funds: 422,
  no_home_wallet: 422,
  no_route_for_chain: 422,
  not_home_chain: 422,
  not_home_wallet: 422,
  pix_onramp_unavailable: 422,
  quote_already_used: 422,
  quote_expired: 422,
  quote_mismatch: 422,
  quote_not_found: 422,
  quote_unavailable: 422,
  unsupported_network: 422,
  wallet_chain_unknown: 422,
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;
export type ErrorCode = keyof typeof errorCodeStatus;

const ErrorMessage = /* @__PURE__ */ schema(() => z.string().check(z.meta({ description: 'For people; never branch on it.' })));

export const BeneficiaryIncompleteBody = /* @__PURE__ */ schema(() => z
  .object({
    error: z.literal('beneficiary_incomplete'),
    message: ErrorMessage,
    missing: z.array(z.string()).check(z.minLength(1), z.meta({ description: 'The beneficiary fields the corridor needs and the request lacked.' })),
  })
  .check(z.meta({ id: 'BeneficiaryIncompleteError' })));

export const ComplianceHoldBody = /* @__PURE__ */ schema(() => z
  .object({
    error: z.literal('compliance_hold'),
    message: ErrorMessage,
    transactionId: z
      .string()
      .check(
        z.meta({
          description:
            'The id of what was held and never started (the payment, withdrawal or off-ramp id; for a beneficiary registration, the id it would have had); do not retry automatically.',
        }),
      ),
  })
  .check(z.meta({ id: 'ComplianceHoldError' })));

export const InsufficientFundsBody = /* @__PURE__ */ schema(() => z
  .object({
    error: z.literal('insufficient_funds'),
    message: ErrorMessage,
    available: Money.check(
      z.meta({
        description: 'What the home wallet holds. The contract names the field but not its type; a money object is our choice.',
      }),
    ),
  })
  .check(z.meta({ id: 'InsufficientFundsError' })));

export type ValidationErrorBody = z.infer<typeof ValidationErrorBody>;
export type RateLimitedBody = z.infer<typeof RateLimitedBody>;
export type NotImplementedBody = z.infer<typeof NotImplementedBody>;
export type BeneficiaryIncompleteBody = z.infer<typeof BeneficiaryIncompleteBody>;
export type ComplianceHoldBody = z.infer<typeof ComplianceHoldBody>;
export type InsufficientFundsBody = z.infer<typeof InsufficientFundsBody>;
