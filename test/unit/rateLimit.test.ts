import { describe, expect, it } from 'vitest';
import { decide, defaultLimits } from '#domain/rateLimit.ts';

describe('GCRA token bucket', () => {
  const limit = { burst: 3, perSecond: 1 };

  it('lets a full burst through from an unused bucket, then refuses the next', () => {
    const now = 1_000_000;
    let tat: number | undefined;
    const remaining: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const decision = decide(tat, now, limit);
      expect(decision.allowed).toBe(true);
      if (decision.allowed) tat = decision.newTat;
      remaining.push(decision.headers['ratelimit-remaining']);
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const refused = decide(tat, now, limit);
    expect(refused).toMatchObject({ allowed: false, retryAfterSeconds: 1 });
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-reset']).toBe('3');
  });

  it('refills at the sustained rate', () => {
    const now = 5_000_000;
    const tat = now + 3_000; // empty bucket
    expect(decide(tat, now, limit).allowed).toBe(false);
    expect(decide(tat, now + 999, limit).allowed).toBe(false);
    const later = decide(tat, now + 1_000, limit);
    expect(later.allowed).toBe(true);
    expect(later.headers['ratelimit-remaining']).toBe('0');
  });

  it('an idle bucket is full again, never more than full', () => {
    const decision = decide(1_000, 10_000_000, limit);
    expect(decision).toMatchObject({ allowed: true });
    expect(decision.headers['ratelimit-remaining']).toBe('2');
  });

  it('charges a cost of several tokens at once, and refuses a cost above the burst', () => {
    const now = 0;
    expect(decide(undefined, now, limit, 3)).toMatchObject({ allowed: true });
    expect(decide(undefined, now, limit, 4)).toMatchObject({ allowed: false });
  });

  it('uses the contract defaults', () => {
    expect(defaultLimits).toEqual({
      initiate: { burst: 30, perSecond: 5 },
      write: { burst: 60, perSecond: 10 },
      read: { burst: 300, perSecond: 50 },
    });
    let tat: number | undefined;
    let allowed = 0;
    for (let i = 0; i < 400; i += 1) {
      const decision = decide(tat, 0, defaultLimits.read);
      if (!decision.allowed) break;
      tat = decision.newTat;
      allowed += 1;
    }
    expect(allowed).toBe(300);
  });
});
