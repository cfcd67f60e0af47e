import { beforeAll, describe, expect, it } from 'vitest';
import type { SQSEvent } from 'aws-lambda';
import { useFreshTable } from '../support/table.ts';
import { handler as webhookStarter } from '../../functions/events/webhookStarter.ts';
import { dynamo } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { newOutboxEvent, type OutboxEvent } from '#store/outbox.ts';
import { appendAttempt, getEvent, keepFirstAttempt, recordEvent, setDeliveryStatus } from '#store/webhooks.ts';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { tableName } from '#store/client.ts';

/**
 * The webhook starter driven as its queue drives it: each event of a batch is kept for GET /events,
 * and an organization's endpoint is read once for the batch's events of that organization.
 */
function batchOf(events: OutboxEvent[]): SQSEvent {
  return {
    Records: events.map((event, n) => ({
      messageId: `m-${n}`, receiptHandle: `m-${n}`, attributes: {} as never, messageAttributes: {}, md5OfBody: '',
      body: JSON.stringify({ version: '0', id: `bus-${n}`, 'detail-type': event.type, source: 'payments.service', account: '0', time: event.createdAt, region: 'eu-west-1', resources: [], detail: event }),
      eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:payments-sandbox-webhookDelivery', awsRegion: 'eu-west-1',
    })),
  };
}

const paidOut = (organizationId: string, transactionId: string) =>
  newOutboxEvent('transaction.paid_out', organizationId, { transactionId, running: true, state: 'PAID_OUT', timeline: [] });

describe('webhook starter', () => {
  beforeAll(async () => {
    await useFreshTable('webhookstarter');
  });

  it('keeps every event of a batch and reads each organization\'s endpoint once for it', async () => {
    const endpointReads: string[] = [];
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const key = (args.input as { Key?: { pk?: string; sk?: string } }).Key;
        if (key?.sk === keys.webhookEndpoint('').sk) endpointReads.push(key.pk!);
        return next(args);
      },
      { step: 'initialize', name: 'count-endpoint-reads' },
    );
    const events = [paidOut('org_ws1', 'tx-1'), paidOut('org_ws2', 'tx-2'), paidOut('org_ws1', 'tx-3'), paidOut('org_ws1', 'tx-4')];
    try {
      expect((await webhookStarter(batchOf(events))).batchItemFailures).toEqual([]);
    } finally {
      dynamo().middlewareStack.remove('count-endpoint-reads');
    }
    expect(endpointReads.sort()).toEqual([keys.webhookEndpoint('org_ws1').pk, keys.webhookEndpoint('org_ws2').pk]);
    for (const event of events) {
      expect(await getEvent(event.organizationId, event.id)).toMatchObject({ id: event.id, type: 'transaction.paid_out', deliveryStatus: 'not_sent' });
    }
  });
  it('keeps the signed body compressed and answers it byte for byte; a record stored before with a string body reads as it was', async () => {
    const body = JSON.stringify({ type: 'transaction.paid_out', data: { transactionId: 'tx-ü-1', detail: 'x'.repeat(600) } });
    const record = { organizationId: 'org_bodies', id: 'evt_01BODYNEW', type: 'transaction.paid_out' as const, createdAt: new Date().toISOString(), body, deliveryStatus: 'not_sent' as const, registrationId: null, attempts: [], redeliveries: 0 };
    await recordEvent(record);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.webhookEvent('org_bodies', 'evt_01BODYNEW') }));
    expect(Item?.body).toBeInstanceOf(Uint8Array);
    expect((Item?.body as Uint8Array).byteLength).toBeLessThan(Buffer.byteLength(body) / 2);
    expect((await getEvent('org_bodies', 'evt_01BODYNEW'))?.body).toBe(body);

    const ttl = Math.floor(Date.now() / 1000) + 3600;
    await dynamo().send(new PutCommand({ TableName: tableName(), Item: { ...keys.webhookEvent('org_bodies', 'evt_01BODYOLD'), entity: 'webhookEvent', ...record, id: 'evt_01BODYOLD', ttl } }));
    expect((await getEvent('org_bodies', 'evt_01BODYOLD'))?.body).toBe(body);
  });
  it('never takes back delivered: a status decided on the event read before a redelivery delivered it keeps delivered, and its attempt is kept', async () => {
    // The chaos workload's finding: a scheduled attempt read the event (delivering), a redelivery
    // beside it delivered it, then the scheduled one found the endpoint replaced and wrote "stopped".
    const organizationId = 'org_delivered';
    const record = { organizationId, id: 'evt_01DELIVERED', type: 'transaction.reconciled' as const, createdAt: new Date().toISOString(), body: '{}', deliveryStatus: 'delivering' as const, registrationId: 'reg-1', attempts: [], redeliveries: 1 };
    await recordEvent(record);
    const made = (redelivery: number, attempt: number, httpStatus: number) => ({ attemptedAt: new Date().toISOString(), redelivery, attempt, url: 'https://example.com/hooks', httpStatus, error: null, latencyMs: 5, nextAttemptAt: null });
    await appendAttempt(organizationId, record.id, made(1, 1, 204), 'delivered');
    await setDeliveryStatus(organizationId, record.id, 'stopped');
    expect((await getEvent(organizationId, record.id))?.deliveryStatus).toBe('delivered');
    await appendAttempt(organizationId, record.id, made(0, 2, 500), 'failed');
    expect(await keepFirstAttempt(organizationId, record.id, made(0, 1, 500), 'delivering')).toBe(true);
    const after = await getEvent(organizationId, record.id);
    expect(after?.deliveryStatus).toBe('delivered');
    expect(after?.attempts.map((attempt) => [attempt.redelivery, attempt.attempt, attempt.httpStatus])).toEqual([[1, 1, 204], [0, 2, 500], [0, 1, 500]]);
    // The first attempt is kept once: a second starter's is refused, and nothing changes.
    expect(await keepFirstAttempt(organizationId, record.id, made(0, 1, 204), 'delivered')).toBe(false);
    expect((await getEvent(organizationId, record.id))?.attempts).toHaveLength(3);
    // On an event not delivered, a status is set as asked; a gone event stays gone.
    await recordEvent({ ...record, id: 'evt_01DELIVERING' });
    await setDeliveryStatus(organizationId, 'evt_01DELIVERING', 'stopped');
    expect((await getEvent(organizationId, 'evt_01DELIVERING'))?.deliveryStatus).toBe('stopped');
    await setDeliveryStatus(organizationId, 'evt_01NONE', 'stopped');
    expect(await getEvent(organizationId, 'evt_01NONE')).toBeUndefined();
    await expect(appendAttempt(organizationId, 'evt_01NONE', made(0, 2, 500), 'failed')).rejects.toThrow(/is gone/);
  });
});
