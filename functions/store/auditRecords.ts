import * as z from 'zod';
import { putIfAbsent } from './client.ts';
import { keys } from './keys.ts';
import { outboxEventSchema } from './outbox.ts';

export const auditRecordEntity = 'auditRecord';

/** The bus's envelope around a service event, as the audit trail's queue hands it over. */
export const busDeliverySchema = z.object({
  id: z.string().min(1),
  source: z.string().min(1),
  'detail-type': z.string().min(1),
  time: z.string().min(1),
  detail: outboxEventSchema,
});
export type BusDelivery = z.infer<typeof busDeliverySchema>;

/**
 * Keeps a service event as an audit record of its organization, for support and reconciliation.
 * Delivery is at least once, so the record is keyed by the event id and written only if absent: a
 * repeated delivery is a no-op. An organization's trail, oldest to newest, is its `AUDIT#` key range:
 * an event id is `evt_<ulid>` issued at the event's time, so the keys sort as the events happened (to
 * the millisecond the ulid carries), and the record needs no index entry of its own (decision 128).
 */
export async function keepAuditRecord({ id: busEventId, source, detail }: BusDelivery): Promise<void> {
  await putIfAbsent({
    ...keys.auditRecord(detail.organizationId, detail.id),
    entity: auditRecordEntity,
    eventId: detail.id,
    type: detail.type,
    organizationId: detail.organizationId,
    createdAt: detail.createdAt,
    source,
    busEventId,
    receivedAt: new Date().toISOString(),
    data: detail.data,
  });
}
