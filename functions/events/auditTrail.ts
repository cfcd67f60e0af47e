import { queueBatchConsumer } from '#platform/queueConsumer.ts';
import { busDeliverySchema, keepAuditRecords } from '#store/auditRecords.ts';

/**
 * Event rule target: keeps every service event as an audit record of its organization
 * (functions/store/auditRecords.ts), the records of one queue batch in one batch write. A message
 * that cannot be parsed, or whose batch could not be written, is reported back, so the queue
 * redelivers it and finally dead-letters it.
 */
export const handler = queueBatchConsumer('audit record not written', busDeliverySchema, keepAuditRecords);
