import { describe, expect, it } from 'vitest';
import { judgeAttempt, maxAttempts, retryAfterSeconds, retryScheduleSeconds } from '#domain/webhookRetries.ts';

const now = new Date('2026-11-25T12:00:00.000Z');

describe('the retry schedule', () => {
  it('is Standard Webhooks: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    expect(retryScheduleSeconds).toEqual([0, 5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
  });

  it('waits the schedule after each failed attempt, and fails the event after the tenth', () => {
    for (let attempt = 1; attempt < maxAttempts; attempt += 1) {
      expect(judgeAttempt({ status: 500, attempt, allowed: maxAttempts, now })).toEqual({ kind: 'retry', waitSeconds: retryScheduleSeconds[attempt] });
    }
    expect(judgeAttempt({ status: 500, attempt: maxAttempts, allowed: maxAttempts, now })).toEqual({ kind: 'failed' });
  });

  it('only 2xx delivers; 3xx, 4xx, 5xx and no answer are failures', () => {
    for (const status of [200, 201, 204, 299]) expect(judgeAttempt({ status, attempt: 1, allowed: 10, now }).kind).toBe('delivered');
    for (const status of [undefined, 100, 301, 302, 304, 400, 404, 429, 500, 503]) expect(judgeAttempt({ status, attempt: 1, allowed: 10, now }).kind).toBe('retry');
  });

  it('410 Gone disables at once', () => {
    expect(judgeAttempt({ status: 410, attempt: 1, allowed: 10, now })).toMatchObject({ kind: 'disable', reason: expect.stringMatching(/410/) });
  });

  it('a redelivery is one attempt', () => {
    expect(judgeAttempt({ status: 500, attempt: 1, allowed: 1, now })).toEqual({ kind: 'failed' });
  });

  it('disables an endpoint failing for five days, not before', () => {
    const day = 86_400_000;
    expect(judgeAttempt({ status: 500, attempt: 2, allowed: 10, now, failingSince: new Date(now.getTime() - 5 * day + 1000) }).kind).toBe('retry');
    expect(judgeAttempt({ status: 500, attempt: 2, allowed: 10, now, failingSince: new Date(now.getTime() - 5 * day) })).toMatchObject({
      kind: 'disable',
      reason: expect.stringMatching(/5 days/),
    });
    // A success ends the run whatever its age.
    expect(judgeAttempt({ status: 200, attempt: 2, allowed: 10, now, failingSince: new Date(now.getTime() - 9 * day) }).kind).toBe('delivered');
  });
});

describe('Retry-After', () => {
  it('is read in seconds or as an HTTP date, capped at a day', () => {
    expect(retryAfterSeconds('120', now)).toBe(120);
    expect(retryAfterSeconds('999999', now)).toBe(86_400);
    expect(retryAfterSeconds(new Date(now.getTime() + 90_000).toUTCString(), now)).toBe(90);
    expect(retryAfterSeconds(new Date(now.getTime() - 90_000).toUTCString(), now)).toBe(0);
    expect(retryAfterSeconds('soon', now)).toBeUndefined();
    expect(retryAfterSeconds(undefined, now)).toBeUndefined();
  });

  it('lengthens a wait, never shortens it', () => {
    expect(judgeAttempt({ status: 503, attempt: 1, allowed: 10, now, retryAfter: 60 })).toEqual({ kind: 'retry', waitSeconds: 60 });
    expect(judgeAttempt({ status: 503, attempt: 3, allowed: 10, now, retryAfter: 60 })).toEqual({ kind: 'retry', waitSeconds: 1800 });
  });
});
