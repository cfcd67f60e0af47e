import { queueConsumer } from '#platform/queueConsumer.ts';
import { busDeliverySchema, keepAuditRecord } from '#store/auditRecords.ts';

/**
 * Event rule target: keeps every service event as an audit record of its organization
 * (functions/store/auditRecords.ts). A message that cannot be parsed or written is reported back,
 * so the queue redelivers it and finally dead-letters it.
 */
export const handler = queueConsumer('audit record not written', busDeliverySchema, keepAuditRecord);
