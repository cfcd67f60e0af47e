import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { maxSettlingDays, outcomeOf, pollWaitSeconds } from '#operations/payment/progress.ts';
import { PaymentState } from '#schemas/transactions.ts';

describe('payment progress rules', () => {
  it('polling backs off with the age of the payout, between 10 s and an hour, never shrinking', () => {
    expect(pollWaitSeconds(0)).toBe(10);
    expect(pollWaitSeconds(3_600_000)).toBe(360);
    expect(pollWaitSeconds(maxSettlingDays * 86_400_000)).toBe(3600);
    fc.assert(
      fc.property(fc.nat(maxSettlingDays * 86_400_000), fc.nat(86_400_000), (age, more) => {
        const wait = pollWaitSeconds(age);
        expect(wait).toBeGreaterThanOrEqual(10);
        expect(wait).toBeLessThanOrEqual(3600);
        expect(pollWaitSeconds(age + more)).toBeGreaterThanOrEqual(wait);
      }),
    );
    // Two weeks of polling stays far below Step Functions' 25,000 history events (~9 per round).
    let rounds = 0;
    for (let age = 0; age < maxSettlingDays * 86_400_000; age += pollWaitSeconds(age) * 1000) rounds += 1;
    expect(rounds * 9).toBeLessThan(25_000);
  });

  it('every state maps to what the workflow does next; a payment caught in ROUTING is submitted again', () => {
    const expected: Record<string, string> = {
      FUNDED: 'retry', PENDING_RETRY: 'retry', ROUTING: 'retry', SETTLING: 'processing', PAID_OUT: 'paid', REFUNDING: 'returned',
    };
    for (const state of PaymentState.options) expect(outcomeOf(state)).toBe(expected[state] ?? 'done');
  });
});
