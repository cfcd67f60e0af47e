/**
 * Token buckets as GCRA (generic cell rate algorithm): a bucket is one number, its
 * "theoretical arrival time" (TAT, epoch ms). That fits one conditional DynamoDB update,
 * so the limit holds across every Lambda instance (docs/decisions/004-rate-limits.md).
 */
export const buckets = ['initiate', 'write', 'read'] as const;
export type BucketName = (typeof buckets)[number];

export interface BucketLimit {
  burst: number;
  perSecond: number;
}

/** The contract's defaults ("Limits"); raisable per organization. */
export const defaultLimits: Record<BucketName, BucketLimit> = {
  initiate: { burst: 30, perSecond: 5 },
  write: { burst: 60, perSecond: 10 },
  read: { burst: 300, perSecond: 50 },
};

export interface RateHeaders {
  'ratelimit-limit': string;
  'ratelimit-remaining': string;
  'ratelimit-reset': string;
}

export type BucketDecision =
  | { allowed: true; newTat: number; headers: RateHeaders }
  | { allowed: false; retryAfterSeconds: number; headers: RateHeaders };

/** How far one request of `cost` moves the TAT, and how far ahead of now the TAT may run. */
export function bucketSpan(limit: BucketLimit, cost = 1): { increment: number; capacity: number } {
  const interval = 1000 / limit.perSecond;
  return { increment: cost * interval, capacity: limit.burst * interval };
}

/**
 * Decide one request of `cost` tokens at `now` against a bucket whose stored TAT is `tat`
 * (undefined when never used). The new TAT is max(tat, now) + cost × emission interval;
 * the request fits when that is at most burst × interval ahead of now.
 */
export function decide(tat: number | undefined, now: number, limit: BucketLimit, cost = 1): BucketDecision {
  const { increment, capacity } = bucketSpan(limit, cost);
  const base = Math.max(tat ?? now, now);
  const newTat = base + increment;
  const ahead = newTat - now;
  if (ahead > capacity) {
    const retryAfterMs = ahead - capacity;
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
      headers: headers(limit, 0, base - now),
    };
  }
  return { allowed: true, newTat, headers: headersAfter(newTat, now, limit) };
}

/** The headers of an allowed request that left the bucket at `newTat`. */
export function headersAfter(newTat: number, now: number, limit: BucketLimit): RateHeaders {
  const { capacity, increment: interval } = bucketSpan(limit);
  const ahead = newTat - now;
  return headers(limit, Math.floor((capacity - ahead) / interval + 1e-9), ahead);
}

function headers(limit: BucketLimit, remaining: number, untilFullMs: number): RateHeaders {
  return {
    'ratelimit-limit': String(limit.burst),
    'ratelimit-remaining': String(Math.max(0, remaining)),
    'ratelimit-reset': String(Math.max(0, Math.ceil(untilFullMs / 1000))),
  };
}
