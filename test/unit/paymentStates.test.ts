import { describe, expect, it } from 'vitest';
import { isRunning, needsPersonStates, terminalStates } from '#domain/paymentStates.ts';
import { PaymentState } from '#schemas/transactions.ts';

/** The schema's own description: RECONCILED, REFUNDED, FAILED terminal; IN_DOUBT, NEEDS_ATTENTION need a person. */
describe('payment states', () => {
  it('stop polling at a terminal state or one that needs a person, and only there', () => {
    expect([...terminalStates].sort()).toEqual(['FAILED', 'RECONCILED', 'REFUNDED']);
    expect([...needsPersonStates].sort()).toEqual(['IN_DOUBT', 'NEEDS_ATTENTION']);
    const running = PaymentState.options.filter(isRunning);
    expect(running).toEqual(['INITIATED', 'QUOTED', 'FUNDED', 'ROUTING', 'SETTLING', 'PAID_OUT', 'REFUNDING', 'PENDING_RETRY']);
  });
});
