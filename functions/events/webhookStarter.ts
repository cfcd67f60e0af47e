import * as z from 'zod/mini';
import { receiveEvent } from '#operations/webhook/delivery.ts';
import { queueConsumer } from '#platform/queueConsumer.ts';
import { outboxEventSchema } from '#store/outbox.ts';

/**
 * Event rule target for the seven event types an integrator receives (functions/contract/events.ts
 * `webhookDelivery`): keeps the event for GET /events and, when the organization's endpoint takes
 * it, makes its first attempt; the delivery workflow is started only when a retry must follow
 * (docs/decisions/132). Internal events never match the rule, so they never get here. The events
 * of a batch are received side by side: the tenth of a burst does not wait for nine POSTs before
 * it, and a slow receiver holds the batch for one attempt's timeout, not ten (each is its own item
 * and execution name; the endpoint is still read, and its secrets opened, once per organization).
 */
const eventSchema = z.object({ detail: outboxEventSchema });

export const handler = queueConsumer('webhook event not received', eventSchema, async ({ detail }, _record, reads) => {
  await receiveEvent(detail, reads);
}, { inParallel: true });
