/**
 * When a webhook delivery is tried again, and when an endpoint is given up on (docs/decisions/091).
 * The Standard Webhooks schedule: the first attempt immediately, then after 5 s, 5 min, 30 min,
 * 2 h, 5 h, 10 h, 14 h, 20 h and 24 h; after the tenth failure the event is marked failed. A
 * receiver's Retry-After is honoured when it asks for longer (never beyond a day). 410 Gone
 * disables the endpoint at once; an endpoint that has failed without a success in between for
 * five days is disabled too.
 */
export const retryScheduleSeconds = [0, 5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400] as const;

export const maxAttempts = retryScheduleSeconds.length;

/** How long any answer has before the attempt counts as failed. */
export const attemptTimeoutMs = 10_000;

export const disableAfterSeconds = 5 * 24 * 3600;

const longestRetryAfterSeconds = 24 * 3600;

export type AttemptVerdict =
  | { kind: 'delivered' }
  | { kind: 'retry'; waitSeconds: number }
  | { kind: 'failed' }
  | { kind: 'disable'; reason: string };

/** `Retry-After` in seconds or as an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(header: string | undefined, now: Date): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), longestRetryAfterSeconds);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - now.getTime()) / 1000)), longestRetryAfterSeconds);
}

/**
 * What follows attempt `attempt` (1-based) of a delivery that may make `allowed` attempts, given
 * its HTTP status (undefined when no answer came: refused, timed out, reset) and since when the
 * endpoint has been failing (undefined when its last attempt succeeded).
 */
export function judgeAttempt(input: {
  status: number | undefined;
  attempt: number;
  allowed: number;
  retryAfter?: number;
  failingSince?: Date;
  now: Date;
  disableAfter?: number;
}): AttemptVerdict {
  const { status, attempt, allowed, now } = input;
  if (status !== undefined && status >= 200 && status < 300) return { kind: 'delivered' };
  if (status === 410) return { kind: 'disable', reason: 'The endpoint answered 410 Gone.' };
  const window = input.disableAfter ?? disableAfterSeconds;
  if (input.failingSince && now.getTime() - input.failingSince.getTime() >= window * 1000) {
    return { kind: 'disable', reason: `Every attempt failed for ${formatWindow(window)} (since ${input.failingSince.toISOString()}).` };
  }
  if (attempt >= Math.min(allowed, maxAttempts)) return { kind: 'failed' };
  const scheduled = retryScheduleSeconds[attempt]!;
  return { kind: 'retry', waitSeconds: Math.max(scheduled, input.retryAfter ?? 0) };
}

function formatWindow(seconds: number): string {
  return seconds % 86_400 === 0 ? `${seconds / 86_400} days` : `${seconds} seconds`;
}
