import type { PaymentState } from '#schemas/transactions.ts';

export type { PaymentState };

/** Terminal: stop polling. */
export const terminalStates: readonly PaymentState[] = ['RECONCILED', 'REFUNDED', 'FAILED'];
/** Needs a person: stop polling; funds stay held until operations decide. */
export const needsPersonStates: readonly PaymentState[] = ['IN_DOUBT', 'NEEDS_ATTENTION'];

export function isRunning(state: PaymentState): boolean {
  return !terminalStates.includes(state) && !needsPersonStates.includes(state);
}
