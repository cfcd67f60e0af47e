/**
 * When the client sends a request again on its own, and how long it waits first.
 *
 * - 429 `rate_limited` did nothing (the contract), so any request is sent again after `Retry-After`.
 * - 503 `unavailable` and a lost connection may have done something, so only requests that are safe to
 *   repeat are: GETs, and the money-moving POSTs, which carry their idempotency key in the body and are
 *   sent again with the same key (the same operation, never a second one). Other writes (a recipient,
 *   a beneficiary, an invitation) come back to the caller, who knows whether a repeat is harmless.
 */
export interface RetryPolicy {
  /** Tries in all, the first included; 1 turns retries off. Default 4. */
  attempts?: number;
  /** The first wait after a 503 or a lost connection, doubled at each try, with jitter. Default 500 ms. */
  backoffMs?: number;
  /** A 429 asking to wait longer than this is answered to the caller at once. Default 60 s. */
  maxRetryAfterSeconds?: number;
}

export const defaultRetryPolicy: Required<RetryPolicy> = { attempts: 4, backoffMs: 500, maxRetryAfterSeconds: 60 };

interface Answer {
  response: Response;
  error?: unknown;
}

/**
 * Sends (and re-sends) one request. `send` builds the request afresh each time from the same
 * options, so a re-sent money-moving call carries the same idempotency key.
 */
export async function withRetries<Result extends Answer>(
  send: () => Promise<Result>,
  repeatable: boolean,
  policy: Required<RetryPolicy>,
  signal?: AbortSignal | null,
): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    let result: Result;
    try {
      result = await send();
    } catch (error) {
      // fetch rejects when the connection is lost (or the caller aborted, which is final).
      if (!repeatable || attempt >= policy.attempts || signal?.aborted) throw error;
      await pause(backoff(policy, attempt), signal);
      continue;
    }
    const waitMs = attempt < policy.attempts ? waitBeforeRetry(result, repeatable, policy, attempt) : undefined;
    if (waitMs === undefined) return result;
    await pause(waitMs, signal);
  }
}

function waitBeforeRetry(result: Answer, repeatable: boolean, policy: Required<RetryPolicy>, attempt: number): number | undefined {
  const { status } = result.response;
  if (status === 429) {
    const seconds = retryAfterSeconds(result);
    return seconds <= policy.maxRetryAfterSeconds ? seconds * 1000 : undefined;
  }
  // A 503 in the contract's body; GET /health's degraded 503 is an answer, not a failure to retry.
  if (status === 503 && repeatable && (result.error as { error?: unknown } | undefined)?.error === 'unavailable') {
    return Math.max(backoff(policy, attempt), headerSeconds(result.response) * 1000);
  }
  return undefined;
}

/** `Retry-After` in seconds (or an HTTP date), else the body's `retryAfterSeconds`, else 1. */
function retryAfterSeconds(result: Answer): number {
  const fromHeader = headerSeconds(result.response);
  if (fromHeader > 0) return fromHeader;
  const fromBody = (result.error as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof fromBody === 'number' && fromBody >= 0 ? fromBody : 1;
}

function headerSeconds(response: Response): number {
  const value = response.headers.get('retry-after');
  if (!value) return 0;
  if (/^\d+$/.test(value.trim())) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? 0 : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

/** Exponential with jitter between half and the whole, so clients that failed together do not return together. */
function backoff(policy: Required<RetryPolicy>, attempt: number): number {
  const ceiling = policy.backoffMs * 2 ** (attempt - 1);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function pause(ms: number, signal?: AbortSignal | null): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', abort, { once: true });
  });
}
