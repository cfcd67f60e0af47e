/**
 * How long a careful integrator waits before sending a request again, in every test that resends:
 * the Retry-After the answer named (none for a dropped connection), then full jitter over a window
 * that doubles with each attempt up to a cap. Copies that met a 503 together spread out instead of
 * arriving again in step (AWS's "exponential backoff and jitter").
 */
export function resendPauseMs(attempt: number, retryAfterSeconds = 0): number {
  return retryAfterSeconds * 1_000 + Math.random() * Math.min(250 * 2 ** attempt, 4_000);
}
