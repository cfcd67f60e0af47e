import { taskHandler } from '#operations/kit/taskHandler.ts';
import { parkPayment, pollPayout, reconcilePayment, refundPayment, submitPayout } from '#operations/payment/progress.ts';

/**
 * payment / every Task state (statemachines/payment.asl.json). The steps, and why each is safe to
 * run twice, are in functions/operations/payment/progress.ts.
 */
export const handler = taskHandler('payment', { submit: submitPayout, poll: pollPayout, refund: refundPayment, reconcile: reconcilePayment, park: parkPayment });
