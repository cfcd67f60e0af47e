/**
 * How long a careful integrator waits before sending a request again, in every test that resends:
 * the Retry-After the answer named (none for a dropped connection), then full jitter over a window
 * that doubles with each attempt up to a cap. Copies that met a 503 together spread out instead of
 * arriving again in step (AWS's "exponential backoff and jitter").
 */
export function resendPauseMs(attempt: number, retryAfterSeconds = 0): number {
  return retryAfterSeconds * 1_000 + Math.random() * Math.min(250 * 2 ** attempt, 4_000);
}

/**
 * A keyed request as an integrator sends it to a stack of its own (the crash tests' `npm start`):
 * a 503 ("may or may not have taken effect") is sent again, the same bytes and key, after
 * resendPauseMs, up to `attempts` times in all. The first requests to a stack just started, with the
 * machine busy, meet the function's deadline now and then: what the crash tests assert comes after.
 */
export async function fetchResending(url: string, init: RequestInit, attempts = 5): Promise<Response> {
  for (let attempt = 1; ; attempt += 1) {
    const response = await fetch(url, init);
    if (response.status !== 503 || attempt >= attempts) return response;
    await new Promise((resolve) => setTimeout(resolve, resendPauseMs(attempt, Number(response.headers.get('retry-after')) || 1)));
  }
}
