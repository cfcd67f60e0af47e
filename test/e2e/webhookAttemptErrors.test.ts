import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { call, createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';
import { until } from '../support/eventually.ts';
import { startReceiver } from '../support/webhookReceiver.ts';
import { eventSource } from '#contract/events.ts';
import { maxAttempts } from '#domain/webhookRetries.ts';
import { newOutboxEvent } from '#store/outbox.ts';

/**
 * What GET /events/{id} tells about a failed attempt (docs/decisions/092): the class of the failure,
 * never the connection error's own words, which quote the address and port the sender tried. Here a
 * receiver's port is closed (`simulated` lets loopback through), so every attempt is refused.
 */
let service: LocalService;
let org: TestOrganization;

beforeAll(async () => {
  service = await startTestService();
  org = await createTestOrganization(service, 'approved', 'Attempt Errors Org');
});

afterAll(async () => {
  await service?.stop();
});

describe('attempt records', () => {
  it('a refused connection is "connection refused" on every attempt, without the address or port', async () => {
    const closed = await startReceiver();
    const url = `${closed.url}/hooks`;
    await closed.close();
    const port = new URL(url).port;
    expect((await call(service, 'PUT', '/webhooks/endpoint', { apiKey: org.apiKey, body: { url } })).status).toBe(200);

    const event = newOutboxEvent('transaction.paid_out', org.organizationId, { transactionId: 'refused-0001', running: false, state: 'PAID_OUT' });
    await service.bus.publish([{ Source: eventSource, DetailType: event.type, Detail: JSON.stringify(event) }]);
    const detail = await until(
      async () => (await call(service, 'GET', `/events/${event.id}`, { apiKey: org.apiKey })).body,
      (body) => body.deliveryStatus === 'failed',
      { what: 'the delivery to fail', timeoutMs: 60_000 },
    );
    expect(detail.attempts).toHaveLength(maxAttempts);
    for (const attempt of detail.attempts) {
      expect(attempt.httpStatus).toBeNull();
      expect(attempt.error).toBe('connection refused');
    }
    // The registered URL is the integrator's own and is shown; nothing else names the address or port.
    const { attempts } = detail as { attempts: { url: string; error: string }[] };
    expect(attempts.map((attempt) => attempt.error).join(' ')).not.toMatch(new RegExp(`ECONNREFUSED|${port}`));
  }, 90_000);
});
