import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { findCorridor, sampleBeneficiary } from '#domain/corridors.ts';
import { crashableService } from '../support/crash.ts';
import { until } from '../support/eventually.ts';
import { startReceiver, verify, type Receiver } from '../support/webhookReceiver.ts';

/**
 * At least once across a crash: `npm start` is SIGKILLed while its receiver holds the first attempt
 * of each event unanswered (the webhook starter sent the POST and kept nothing of it: decision
 * 132); started again on the same store, the event reaches the starter again (here the restarted
 * stream poller reads the stream from its start; in AWS the queue hands the message over again
 * after its visibility timeout), and it arrives again with the same `webhook-id`, signed with the
 * same secret, and ends delivered.
 */
const service = crashableService('hookcrash', {});
let receiver: Receiver | undefined;

afterAll(async () => {
  await service.killAll();
  await receiver?.close();
});

describe('a crash mid-delivery', () => {
  it('re-sends with the same webhook-id after the restart', async () => {
    receiver = await startReceiver();
    // The first attempt of every event is never answered: the process dies while it waits.
    receiver.respond = (delivery) => (delivery.seen === 1 ? new Promise(() => undefined) : { status: 200 });
    const port = await freePort();
    const first = await service.launch(port);
    const auth = { authorization: `Bearer ${first.apiKey}`, 'content-type': 'application/json' };
    const registered = await fetch(`${first.url}/webhooks/endpoint`, { method: 'PUT', headers: auth, body: JSON.stringify({ url: `${receiver.url}/hooks`, events: ['transaction.paid_out'] }) });
    expect(registered.status).toBe(200);
    const { secret } = (await registered.json()) as { secret: string };
    const paid = await fetch(`${first.url}/transactions`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({
        idempotencyKey: `hook-crash-${Date.now().toString(36)}`, corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10.00', currency: 'USDC' },
        recipientReference: 'crash', beneficiary: sampleBeneficiary(findCorridor('USDC', 'MXN', 'MX')!),
      }),
    });
    expect(paid.status).toBe(202);
    const [held] = await until(async () => receiver!.deliveries, (deliveries) => deliveries.length > 0, { what: 'the first attempt to arrive', timeoutMs: 60_000 });
    await service.killHard(first.child);

    const second = await service.launch(port);
    await until(async () => receiver!.of(held!.id), (deliveries) => deliveries.length >= 2, { what: 'the attempt again after the restart', timeoutMs: 120_000, intervalMs: 250 });
    const [before, after] = receiver.of(held!.id);
    expect(after!.id).toBe(before!.id);
    expect(after!.body).toBe(before!.body);
    expect(verify(before!, secret).type).toBe('transaction.paid_out');
    expect(verify(after!, secret).type).toBe('transaction.paid_out');

    const detail = await until(
      async () => (await (await fetch(`${second.url}/events/${held!.id}`, { headers: auth })).json()) as { deliveryStatus: string; attempts: { httpStatus: number | null }[] },
      (body) => body.deliveryStatus === 'delivered',
      { what: 'the event to be delivered', timeoutMs: 30_000 },
    );
    // The attempt cut off by the crash left no record; the one after the restart did.
    expect(detail.attempts.at(-1)!.httpStatus).toBe(200);
    await service.killHard(second.child);
  });
});
