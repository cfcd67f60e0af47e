import * as z from 'zod/mini';
import { attemptDelivery, parkDelivery } from '#operations/webhook/delivery.ts';

/**
 * The Task of statemachines/webhook-delivery.asl.json: `send` makes one attempt, `park` is the
 * Catch. Always answers `waitSeconds` (0 when no retry follows), which the state's ResultSelector reads.
 */
const inputSchema = z.object({
  step: z.enum(['send', 'park']),
  organizationId: z.string().check(z.minLength(1)),
  eventId: z.string().check(z.minLength(1)),
  redelivery: z.number().check(z.int(), z.minimum(0)),
  registrationId: z.string().check(z.minLength(1)),
  error: z.optional(z.unknown()),
});

export const handler = async (event: unknown): Promise<{ outcome: string; waitSeconds: number }> => {
  const { step, ...ref } = inputSchema.parse(event);
  const { outcome, waitSeconds = 0 } = step === 'send' ? await attemptDelivery(ref) : await parkDelivery(ref);
  return { outcome, waitSeconds };
};
