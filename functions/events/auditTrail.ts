import { z } from 'zod';
import { queueConsumer } from '#platform/queueConsumer.ts';
import { keepAuditRecord } from '#store/auditRecords.ts';
import { outboxEventSchema } from '#store/outbox.ts';

/**
 * Event rule target: keeps every service event as an audit record of its organization
 * (functions/store/auditRecords.ts). A message that cannot be parsed or written is reported back,
 * so the queue redelivers it and finally dead-letters it.
 */
const busEventSchema = z.object({
  id: z.string().min(1),
  source: z.string().min(1),
  'detail-type': z.string().min(1),
  time: z.string().min(1),
  detail: outboxEventSchema,
});

export const handler = queueConsumer('audit record not written', busEventSchema, keepAuditRecord);
