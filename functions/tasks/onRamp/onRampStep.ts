import { z } from 'zod';
import { workflowWait } from '#platform/workflow.ts';
import {
  awaitPayment, confirmDelivery, convertPayment, deliverUsdc, openCollection, parkOnRamp, type OnRampNext,
} from '#operations/onRamp/progress.ts';

/**
 * onramp / every Task state: one Lambda for the on-ramp's steps (they share every import, so one
 * warm function serves the whole workflow); the state names its step in the payload. The steps,
 * and why each is safe to run twice, are in functions/operations/onRamp/progress.ts.
 */
const inputSchema = z.object({
  step: z.enum(['open', 'await', 'convert', 'deliver', 'confirm', 'park']),
  organizationId: z.string().min(1),
  onRampId: z.string().min(1),
  error: z.unknown().optional(),
});

const steps = { open: openCollection, await: awaitPayment, convert: convertPayment, deliver: deliverUsdc, confirm: confirmDelivery, park: parkOnRamp };

export async function handler(event: unknown): Promise<{ next: OnRampNext; waitSeconds: number }> {
  const { step, ...ref } = inputSchema.parse(event);
  const { next, waitSeconds = 0 } = await steps[step](ref);
  return { next, waitSeconds: workflowWait(waitSeconds) };
}
