/**
 * Errors the API answers with. A handler or middleware throws an ApiError; the request
 * lifecycle turns it into the contract's body `{error, message, ...extra}`. Anything else
 * thrown becomes 500 `internal` with no internals in the body.
 */
export const errorStatus = {
  // 400
  validation: 400,
  invalid_json: 400,
  bad_request: 400,
  invalid_cursor: 400,
  beneficiary_incomplete: 400,
  duplicate_item_ref: 400,
  invalid_invite: 400,
  invalid_period: 400,
  invalid_query: 400,
  invalid_send_amount: 400,
  unknown_currency: 400,
  unknown_recipient: 400,
  // 401, 403, 404
  unauthorized: 401,
  forbidden: 403,
  kyb_required: 403,
  compliance_hold: 403,
  not_found: 404,
  method_not_allowed: 405,
  // 409
  conflict: 409,
  idempotency_key_conflict: 409,
  idempotency_key_reused: 409,
  member_required: 409,
  no_member_email: 409,
  not_simulatable: 409,
  // 413, 415
  payload_too_large: 413,
  unsupported_media_type: 415,
  // 422
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
  // 429, 5xx
  rate_limited: 429,
  internal: 500,
  not_implemented: 501,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = errorStatus[code];
  }

  body(): Record<string, unknown> {
    return { error: this.code, message: this.message, ...this.extra };
  }
}

export interface ValidationIssue {
  path: (string | number)[];
  message: string;
}

export function validationError(issues: ValidationIssue[], message = 'The request is not valid.'): ApiError {
  return new ApiError('validation', message, { issues });
}

export function notFound(what = 'resource'): ApiError {
  return new ApiError('not_found', `No such ${what}.`);
}
