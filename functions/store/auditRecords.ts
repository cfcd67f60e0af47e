import * as z from 'zod/mini';
import { batchPutAll } from './client.ts';
import { keys } from './keys.ts';
import { outboxEventSchema } from './outbox.ts';

export const auditRecordEntity = 'auditRecord';

/** The bus's envelope around a service event, as the audit trail's queue hands it over. */
export const busDeliverySchema = z.object({
  id: z.string().check(z.minLength(1)),
  source: z.string().check(z.minLength(1)),
  'detail-type': z.string().check(z.minLength(1)),
  time: z.string().check(z.minLength(1)),
  detail: outboxEventSchema,
});
export type BusDelivery = z.infer<typeof busDeliverySchema>;

/**
 * Keeps the service events of a queue batch as audit records of their organizations, for support and
 * reconciliation, in one BatchWriteItem (ten records a call instead of ten Puts; unprocessed ones are
 * sent again). An organization's trail, oldest to newest, is its `AUDIT#` key range: an event id is
 * `evt_<ulid>` issued at the event's time, so the keys sort as the events happened (to the millisecond
 * the ulid carries), and the record needs no index entry of its own (decision 128).
 *
 * Delivery is at least once and a batch write cannot be conditional, so a record is the event alone,
 * nothing of the delivery that brought it (no bus event id, no time received): a repeated delivery
 * writes the very same item again, which changes nothing (docs/decisions/141).
 */
export async function keepAuditRecords(deliveries: BusDelivery[]): Promise<void> {
  const records = new Map<string, Record<string, unknown>>();
  for (const { source, detail } of deliveries) {
    const key = keys.auditRecord(detail.organizationId, detail.id);
    // One event twice in a batch (a duplicate delivery) is one record: a batch write refuses a key twice.
    records.set(`${key.pk} ${key.sk}`, {
      ...key,
      entity: auditRecordEntity,
      eventId: detail.id,
      type: detail.type,
      organizationId: detail.organizationId,
      createdAt: detail.createdAt,
      source,
      data: detail.data,
    });
  }
  await batchPutAll([...records.values()]);
}
