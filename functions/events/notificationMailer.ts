import * as z from 'zod/mini';
import { mailNotification } from '#operations/notification/mailing.ts';
import { queueConsumer } from '#platform/queueConsumer.ts';
import { outboxEventSchema } from '#store/outbox.ts';
import { EventType } from '#schemas/webhooks.ts';

/** Event rule target of the seven contract events (functions/contract/events.ts): their e-mails (docs/decisions/094). */
const busEventSchema = z.object({ detail: z.extend(outboxEventSchema, { type: EventType }) });

export const handler = queueConsumer('notification e-mails not all sent', busEventSchema, ({ detail }, _record, reads) => mailNotification(detail, reads));
