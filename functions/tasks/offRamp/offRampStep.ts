import { z } from 'zod';
import { workflowWait } from '#platform/workflow.ts';
import { advanceOffRamp, parkOffRamp, type OffRampOutcome } from '#operations/offRamp/progress.ts';

/**
 * offRamp / every Task state: one Lambda for the off-ramp's steps; the state names its step in the
 * payload. `advance` does what the off-ramp's stage calls for; `park` stops it IN_DOUBT after an
 * unexpected error. Why each is safe to run twice: functions/operations/offRamp/progress.ts.
 */
const inputSchema = z.object({
  step: z.enum(['advance', 'park']),
  organizationId: z.string().min(1),
  offRampId: z.string().min(1),
  error: z.unknown().optional(),
});

const steps = { advance: advanceOffRamp, park: parkOffRamp };

export async function handler(event: unknown): Promise<{ outcome: OffRampOutcome; waitSeconds: number }> {
  const { step, ...ref } = inputSchema.parse(event);
  const { outcome, waitSeconds = 10 } = await steps[step](ref);
  return { outcome, waitSeconds: workflowWait(waitSeconds) };
}
