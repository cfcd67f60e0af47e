import type { operations } from './schema.d.ts';

/**
 * Every error answer the document declares, as one union discriminated on `error` (the contract's
 * code; branch on it, never on `message`): `ValidationError` with its `issues`, `RateLimited` with
 * `retryAfterSeconds`, `InsufficientFundsError` with `available`, … and `Error` for the codes with no
 * field of their own. A call's own result is narrower: `result.error` is the union of what that
 * operation documents.
 */
export type ErrorBody = Extract<{ [Operation in keyof operations]: ErrorsOf<operations[Operation]> }[keyof operations], { error: string }>;

/** The contract's error codes (`validation`, `insufficient_funds`, `rate_limited`, …). */
export type ErrorCode = ErrorBody['error'];

type Success = 200 | 201 | 202 | 204;
type JsonOf<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;
type ErrorsOf<Operation> = Operation extends { responses: infer Responses }
  ? { [Status in Exclude<keyof Responses, Success>]: JsonOf<Responses[Status]> }[Exclude<keyof Responses, Success>]
  : never;

/**
 * An error answer as a thrown error: what `unwrap` throws, and what `paginate` throws (an iterator has
 * no result to return). `body` is the typed union; `code` is `body.error`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly code: ErrorCode;

  constructor(
    readonly status: number,
    readonly body: ErrorBody,
    readonly response: Response,
  ) {
    super(`${status} ${body.error}: ${body.message}`);
    this.code = body.error;
  }
}

/**
 * The result of a call as its data, or its error answer thrown as an `ApiError` (for callers who
 * prefer exceptions: `const tx = unwrap(await client.GET(…))`). An answer that is not the contract's
 * error body (a proxy's HTML page, API Gateway's own 413) is thrown as a plain Error with its status.
 */
export function unwrap<Result extends { data?: unknown; error?: unknown; response: Response }>(result: Result): Exclude<Result['data'], undefined> {
  const { response, error } = result;
  if (error === undefined) return result.data as Exclude<Result['data'], undefined>;
  if (isErrorBody(error)) throw new ApiError(response.status, error, response);
  throw new Error(`${response.status} ${response.statusText}: ${typeof error === 'string' ? error.slice(0, 500) : JSON.stringify(error)}`);
}

export function isErrorBody(value: unknown): value is ErrorBody {
  return typeof value === 'object' && value !== null && typeof (value as { error?: unknown }).error === 'string' && typeof (value as { message?: unknown }).message === 'string';
}
