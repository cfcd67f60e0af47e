import * as z from 'zod';
import { receiveEvent } from '#operations/webhook/delivery.ts';
import { queueConsumer } from '#platform/queueConsumer.ts';
import { outboxEventSchema } from '#store/outbox.ts';
import { getEndpoint } from '#store/webhooks.ts';

/**
 * Event rule target for the seven event types an integrator receives (functions/contract/events.ts
 * `webhookDelivery`): keeps the event for GET /events and starts its delivery when the
 * organization's endpoint takes it. Internal events never match the rule, so they never get here.
 * The events of a batch are received side by side: the tenth of a burst does not wait for nine
 * deliveries to be started before it (each is its own item and execution name; the endpoint is
 * still read once per organization).
 */
const eventSchema = z.object({ detail: outboxEventSchema });

export const handler = queueConsumer('webhook event not received', eventSchema, async ({ detail }, _record, reads) => {
  await receiveEvent(detail, (organizationId) => reads(`webhookEndpoint:${organizationId}`, () => getEndpoint(organizationId)));
}, { inParallel: true });
