import {
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
  TransactionConflictException,
} from '@aws-sdk/client-dynamodb';
import { isTransientError } from '@smithy/core/retry';
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

/**
 * Conditional writes of one item that kept losing races to concurrent requests, each of which
 * would have succeeded alone: nothing was written, and a retry is safe.
 */
export class StoreContended extends Error {
  constructor(what: string) {
    super(`Concurrent requests kept changing ${what}; nothing was written.`);
    this.name = 'StoreContended';
  }
}

/** DynamoDB's answers that say "not now" after the SDK's own retries: busy, throttled, contended. */
const storeBusy = [InternalServerError, ProvisionedThroughputExceededException, RequestLimitExceeded, ThrottlingException, TransactionConflictException];

/** Cancellation codes of a TransactWriteItems caused by contention alone: it wrote nothing and is worth another try. */
const contentionCodes = new Set(['TransactionConflict', 'ThrottlingError', 'ProvisionedThroughputExceeded', 'RequestLimitExceeded']);

/** A cancelled transaction that no condition refused, only contention (transactWrite retries these). */
export function isContentionCancellation(error: unknown): boolean {
  const reasons = error instanceof TransactionCanceledException ? error.CancellationReasons : undefined;
  return reasons !== undefined && reasons.some((reason) => reason.Code && contentionCodes.has(reason.Code))
    && reasons.every((reason) => !reason.Code || reason.Code === 'None' || contentionCodes.has(reason.Code));
}

/**
 * An AWS call that never got its answer after the SDK's own retries: a timeout, a connection reset or
 * refused, a 5xx the SDK calls transient. Classified by the SDK's own rules (the ones its retries
 * use). Its work may or may not have been done: a write can commit and its answer be lost.
 */
function isAnswerLost(error: unknown): boolean {
  return error instanceof Error && isTransientError(error as Parameters<typeof isTransientError>[0]);
}

/**
 * A dependency that did not answer in time or was too busy: 503 `unavailable`, retry with backoff.
 * A transaction still cancelled by contention after transactWrite's retries is one: it wrote nothing.
 * A call whose answer was lost is one too: the contract's 503 says the request may or may not have
 * taken effect, and a retry with the same idempotency key is what settles it (a 500 says neither).
 */
export function isDependencyUnavailable(error: unknown): boolean {
  return error instanceof StoreContended || storeBusy.some((type) => error instanceof type) || isContentionCancellation(error) || isAnswerLost(error);
}
