import { errorCodeStatus } from '#schemas/errors.ts';

/**
 * Errors the API answers with. A handler or middleware throws an ApiError; the request
 * lifecycle turns it into the contract's body `{error, message, ...extra}`. Anything else
 * thrown becomes 500 `internal` with no internals in the body. The one map of codes to
 * statuses is the contract's (schemas/errors.ts), which the OpenAPI document reads too.
 */
export const errorStatus = errorCodeStatus;

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
