import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { SQSEvent } from 'aws-lambda';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { handler as notificationMailer } from '../../functions/events/notificationMailer.ts';
import { useMailTransport, type MailMessage, type MailTransport } from '#providers/mail.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';
import { acceptInvitation, createInvitation, getMember, type MemberItem } from '#store/members.ts';
import { confirmVerification, issueVerification, setNotificationEvents } from '#store/notifications.ts';
import { createOrganization } from '#store/organizations.ts';
import { newOutboxEvent } from '#store/outbox.ts';
import type { EventType } from '#schemas/webhooks.ts';

/**
 * The notification mailer driven as its queue drives it (lib/aws/eventsStack.ts; the local bus does the
 * same): at-least-once delivery gives one e-mail per member and event, a failed send is retried without
 * mailing the members already mailed, and a claim left by an attempt that died is taken over once its
 * lease is past. The transport is a recorder at the mail port (the only third party here).
 */
const sent: (MailMessage & { from: string })[] = [];
const recorder: MailTransport = {
  name: 'recorder',
  async send(message) {
    sent.push(message);
    return { messageId: `m-${sent.length}` };
  },
};

let organizationId: string;
let seq = 0;

async function verifiedMember(events: EventType[]): Promise<MemberItem> {
  seq += 1;
  const invited = await createInvitation({ organizationId, email: `person${seq}.${Date.now()}@example.com`, name: `Person ${seq}`, role: 'member', ttlSeconds: 600 });
  if (invited === 'email_taken') throw new Error('address taken');
  const { token } = invited;
  const accepted = await acceptInvitation(token, 'sandbox');
  if ('refused' in accepted) throw new Error(`invitation ${accepted.refused}`);
  const chosen = await setNotificationEvents(accepted.member, events);
  if (chosen === 'stale') throw new Error('stale');
  const issued = await issueVerification(chosen, 600);
  if (issued === 'stale') throw new Error('stale');
  expect((await confirmVerification(issued.token)).outcome).toBe('verified');
  return (await getMember(organizationId, chosen.id))!;
}

function delivery(event: ReturnType<typeof newOutboxEvent>, messageId = 'msg-1'): SQSEvent {
  const body = { version: '0', id: `bus-${messageId}`, 'detail-type': event.type, source: 'payments.service', account: '0', time: event.createdAt, region: 'eu-west-1', resources: [], detail: event };
  return {
    Records: [{
      messageId, receiptHandle: messageId, body: JSON.stringify(body), attributes: {} as never, messageAttributes: {}, md5OfBody: '',
      eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:payments-sandbox-notificationMailer', awsRegion: 'eu-west-1',
    }],
  };
}

const reconciled = (transactionId: string) => newOutboxEvent('transaction.reconciled', organizationId, {
  transactionId, running: false, state: 'RECONCILED', receiveAmount: { amount: '457900', currency: 'MXN', scale: 2 }, timeline: [],
});

const marker = async (eventId: string, memberId: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.notificationMail(eventId, memberId), ConsistentRead: true }))).Item;

describe('notification mailer', () => {
  beforeAll(async () => {
    await useFreshTable('notifymailer');
    organizationId = (await createOrganization({ name: 'Mailer Org', kybStatus: 'approved', environment: 'sandbox' })).organization.id;
    useMailTransport(recorder);
  });
  afterAll(() => useMailTransport(undefined));
  beforeEach(() => {
    sent.length = 0;
  });

  it('mails once per member and event when the event is delivered twice', async () => {
    const member = await verifiedMember(['transaction.reconciled']);
    const event = reconciled('invoice-2026-0042');
    expect((await notificationMailer(delivery(event, 'first'))).batchItemFailures).toEqual([]);
    expect((await notificationMailer(delivery(event, 'second'))).batchItemFailures).toEqual([]);
    const mine = sent.filter((message) => message.to === member.email);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.subject).toBe('Payment invoice-2026-0042 reconciled: 4,579.00 MXN paid');
    expect(mine[0]!.headers?.['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(await marker(event.id, member.id)).toMatchObject({ status: 'sent', messageId: expect.any(String) });
  });

  it('a failed send is retried by the queue, without mailing again the members already mailed', async () => {
    const [earlier, later] = [await verifiedMember(['transaction.reconciled']), await verifiedMember(['transaction.reconciled'])].sort((a, b) => a.id.localeCompare(b.id));
    const event = reconciled('invoice-retry');
    const original = recorder.send;
    let refused = false;
    // The transport refuses the later member's message once (members are mailed in id order).
    recorder.send = async (message) => {
      if (message.to === later!.email && !refused) {
        refused = true;
        throw new Error('SES throttled');
      }
      return original(message);
    };
    try {
      expect((await notificationMailer(delivery(event, 'retry-1'))).batchItemFailures).toEqual([{ itemIdentifier: 'retry-1' }]);
      expect(await marker(event.id, later!.id)).toBeUndefined();
      expect((await notificationMailer(delivery(event, 'retry-1'))).batchItemFailures).toEqual([]);
    } finally {
      recorder.send = original;
    }
    const forEvent = sent.filter((message) => message.subject.startsWith('Payment invoice-retry'));
    expect(forEvent.filter((message) => message.to === earlier!.email)).toHaveLength(1);
    expect(forEvent.filter((message) => message.to === later!.email)).toHaveLength(1);
  });

  it('a claim another delivery holds waits; one left by an attempt that died is taken over after its lease', async () => {
    const member = await verifiedMember(['transaction.in_doubt']);
    const event = newOutboxEvent('transaction.in_doubt', organizationId, { transactionId: 'pay-doubt', running: false, state: 'IN_DOUBT', timeline: [] });
    const claim = (claimedAt: Date) => dynamo().send(new PutCommand({
      TableName: tableName(),
      Item: { ...keys.notificationMail(event.id, member.id), entity: 'notificationMail', status: 'sending', claimedAt: claimedAt.toISOString() },
    }));
    await claim(new Date());
    expect((await notificationMailer(delivery(event, 'busy'))).batchItemFailures).toEqual([{ itemIdentifier: 'busy' }]);
    expect(sent.filter((message) => message.to === member.email)).toHaveLength(0);

    await claim(new Date(Date.now() - 5 * 60_000));
    expect((await notificationMailer(delivery(event, 'after-crash'))).batchItemFailures).toEqual([]);
    const mine = sent.filter((message) => message.to === member.email);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.subject).toBe('Payment pay-doubt is in doubt: it is parked until operations confirm the payout');
  });

  it('mails nobody for an event no member chose, and refuses a message that is not one of the seven events', async () => {
    await verifiedMember(['onramp.delivered']);
    expect((await notificationMailer(delivery(newOutboxEvent('offramp.paid', organizationId, { offRampId: 'off-1' }), 'none'))).batchItemFailures).toEqual([]);
    expect(sent).toHaveLength(0);
    expect((await notificationMailer(delivery(newOutboxEvent('transaction.funded', organizationId, { transactionId: 'x' }), 'other'))).batchItemFailures)
      .toEqual([{ itemIdentifier: 'other' }]);
  });
  it('reads who chose events once for a batch of the organization\'s events of several types, and mails each event chosen', async () => {
    const member = await verifiedMember(['transaction.reconciled']);
    const paidOut = newOutboxEvent('transaction.paid_out', organizationId, {
      transactionId: 'batch-d', running: true, state: 'PAID_OUT', receiveAmount: { amount: '457900', currency: 'MXN', scale: 2 }, timeline: [],
    });
    const events = [reconciled('batch-a'), reconciled('batch-b'), paidOut, reconciled('batch-c')];
    const queries: string[] = [];
    dynamo().middlewareStack.add(
      (next) => async (args) => {
        const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> }).ExpressionAttributeValues ?? {};
        if (Object.values(values).some((value) => typeof value === 'string' && value.startsWith('NOTIFY#'))) queries.push(String(values[':skPrefix']));
        return next(args);
      },
      { step: 'initialize', name: 'count-subscriber-reads' },
    );
    try {
      const batch: SQSEvent = { Records: events.flatMap((event, n) => delivery(event, `batch-${n}`).Records) };
      expect((await notificationMailer(batch)).batchItemFailures).toEqual([]);
    } finally {
      dynamo().middlewareStack.remove('count-subscriber-reads');
    }
    // Every type's subscriptions in one read (decision 142); the paid_out event mails nobody who did not choose it.
    expect(queries).toEqual(['NOTIFY#']);
    expect(sent.filter((message) => message.to === member.email)).toHaveLength(3);
  });
});
