import { taskHandler } from '#operations/kit/taskHandler.ts';
import { awaitPayment, confirmDelivery, convertPayment, deliverUsdc, openCollection, parkOnRamp } from '#operations/onRamp/progress.ts';

/**
 * onramp / every Task state (statemachines/onramp.asl.json). A step answers the step to run next
 * and how long to wait first (0: at once). The steps, and why each is safe to run twice, are in
 * functions/operations/onRamp/progress.ts.
 */
export const handler = taskHandler(
  'onRamp',
  { open: openCollection, await: awaitPayment, convert: convertPayment, deliver: deliverUsdc, confirm: confirmDelivery, park: parkOnRamp },
  0,
);
