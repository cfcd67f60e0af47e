import * as z from 'zod/mini';
import { logger } from '#platform/logger.ts';
import { queueConsumer } from '#platform/queueConsumer.ts';
import { recordSuppression } from '#store/mailSuppressions.ts';

/**
 * SES bounce and complaint events (the stage's configuration set → the default event bus → the
 * mail-feedback queue, lib/aws/apiStack.ts and eventsStack.ts) recorded as a suppression of the
 * address: a permanent bounce or a complaint. A transient bounce (mailbox full, greylisting) is
 * logged only. The record is an item of its own per address (functions/store/mailSuppressions.ts,
 * the latest event wins), which the notification mailer consults before every message and
 * GET /notifications/preferences shows. A message that cannot be parsed or written is reported back
 * and finally dead-lettered.
 */

const recipients = z.array(z.object({ emailAddress: z.string().check(z.minLength(3)) })).check(z.minLength(1));

const sesEventSchema = z.object({
  id: z.string().check(z.minLength(1)),
  source: z.literal('aws.ses'),
  time: z.string().check(z.minLength(1)),
  detail: z.object({
    eventType: z.enum(['Bounce', 'Complaint']),
    mail: z.object({ messageId: z.string().check(z.minLength(1)), timestamp: z.string().check(z.minLength(1)) }),
    bounce: z.optional(z.object({ bounceType: z.string(), bounceSubType: z.optional(z.string()), bouncedRecipients: recipients })),
    complaint: z.optional(z.object({ complainedRecipients: recipients, complaintFeedbackType: z.optional(z.string()) })),
  }),
});

export const handler = queueConsumer('mail feedback not recorded', sesEventSchema, record);

async function record({ id, time, detail }: z.infer<typeof sesEventSchema>): Promise<void> {
  const suppression = detail.eventType === 'Complaint'
    ? { reason: `complaint${detail.complaint?.complaintFeedbackType ? ` (${detail.complaint.complaintFeedbackType})` : ''}`, addresses: detail.complaint?.complainedRecipients }
    : detail.bounce?.bounceType === 'Permanent'
      ? { reason: `permanent bounce${detail.bounce.bounceSubType ? ` (${detail.bounce.bounceSubType})` : ''}`, addresses: detail.bounce.bouncedRecipients }
      : undefined;
  if (!suppression?.addresses) {
    // Addresses are personal data: the SES message id is enough to find it.
    logger.info('transient bounce, address kept', { sesMessageId: detail.mail.messageId });
    return;
  }
  for (const { emailAddress } of suppression.addresses) {
    await recordSuppression({ email: emailAddress, reason: suppression.reason, sesMessageId: detail.mail.messageId, eventId: id, suppressedAt: time, source: 'ses' });
  }
}
