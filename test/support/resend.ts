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
 * The one resend loop: `send` is made again while it answers 503 ("may or may not have taken
 * effect"), after resendPauseMs (the answer's Retry-After, 1 s when it names none), until another
 * answer comes, `attempts` are spent (the last answer is returned) or the next pause would end past
 * `timeoutMs` (thrown, naming `what`).
 */
export async function resending<Answer extends { status: number; headers: Headers }>(
  send: () => Promise<Answer>,
  { attempts = Infinity, timeoutMs = Infinity, what = 'the request' }: { attempts?: number; timeoutMs?: number; what?: string } = {},
): Promise<Answer> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    const answer = await send();
    if (answer.status !== 503 || attempt >= attempts) return answer;
    const waitMs = resendPauseMs(attempt, Number(answer.headers.get('retry-after')) || 1);
    if (Date.now() + waitMs > deadline) throw new Error(`${what} still answered 503 after ${attempt} attempts in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/**
 * A keyed request as an integrator sends it to a stack of its own (the crash tests' `npm start`):
 * a 503 is sent again, the same bytes and key, up to `attempts` times in all. The first requests to
 * a stack just started, with the machine busy, meet the function's deadline now and then: what the
 * crash tests assert comes after.
 */
export function fetchResending(url: string, init: RequestInit, attempts = 5): Promise<Response> {
  return resending(() => fetch(url, init), { attempts, what: `${init.method ?? 'GET'} ${url}` });
}
