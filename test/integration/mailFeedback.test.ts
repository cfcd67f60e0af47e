import { beforeAll, describe, expect, it } from 'vitest';
import type { SQSEvent } from 'aws-lambda';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { useFreshTable } from '../support/table.ts';
import { handler as mailFeedback } from '../../functions/events/mailFeedback.ts';
import { dynamo, tableName } from '#store/client.ts';
import { keys } from '#store/keys.ts';

/**
 * SES bounce and complaint events, as EventBridge hands them to the mail-feedback queue
 * (lib/aws/eventsStack.ts): a permanent bounce or a complaint suppresses the address, a transient
 * bounce does not, and a message that is not such an event is refused (redelivered, then dead-lettered).
 */
function sqs(...bodies: unknown[]): SQSEvent {
  return {
    Records: bodies.map((body, index) => ({
      messageId: `m${index}`, receiptHandle: `r${index}`, body: JSON.stringify(body), attributes: {} as never, messageAttributes: {}, md5OfBody: '',
      eventSource: 'aws:sqs', eventSourceARN: 'arn:aws:sqs:eu-west-1:123456789012:payments-sandbox-mailFeedback', awsRegion: 'eu-west-1',
    })),
  };
}

const sesEvent = (id: string, detail: Record<string, unknown>) => ({
  version: '0', id, source: 'aws.ses', 'detail-type': 'Email Bounced', time: '2026-11-24T12:00:00Z',
  detail: { mail: { messageId: `ses-${id}`, timestamp: '2026-11-24T11:59:58Z', tags: { 'ses:configuration-set': ['payments-sandbox'] } }, ...detail },
});

const suppression = async (email: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.mailSuppression(email), ConsistentRead: true }))).Item;

describe('mail feedback', () => {
  beforeAll(async () => {
    await useFreshTable('mailfeedback');
  });

  it('suppresses a permanently bouncing address and a complaining one, not a full mailbox', async () => {
    const result = await mailFeedback(sqs(
      sesEvent('e1', { eventType: 'Bounce', bounce: { bounceType: 'Permanent', bounceSubType: 'NoEmail', bouncedRecipients: [{ emailAddress: 'Gone@Example.com' }] } }),
      sesEvent('e2', { eventType: 'Complaint', complaint: { complainedRecipients: [{ emailAddress: 'angry@example.com' }], complaintFeedbackType: 'abuse' } }),
      sesEvent('e3', { eventType: 'Bounce', bounce: { bounceType: 'Transient', bounceSubType: 'MailboxFull', bouncedRecipients: [{ emailAddress: 'full@example.com' }] } }),
    ));
    expect(result).toEqual({ batchItemFailures: [] });
    expect(await suppression('gone@example.com')).toMatchObject({ entity: 'mailSuppression', email: 'gone@example.com', reason: 'permanent bounce (NoEmail)', sesMessageId: 'ses-e1' });
    expect(await suppression('angry@example.com')).toMatchObject({ reason: 'complaint (abuse)', sesMessageId: 'ses-e2' });
    expect(await suppression('full@example.com')).toBeUndefined();
    // Delivered twice (at least once): the same item.
    expect(await mailFeedback(sqs(sesEvent('e1', { eventType: 'Bounce', bounce: { bounceType: 'Permanent', bouncedRecipients: [{ emailAddress: 'gone@example.com' }] } })))).toEqual({ batchItemFailures: [] });
  });

  it('refuses what is not an SES bounce or complaint, so the queue dead-letters it', async () => {
    expect(await mailFeedback(sqs({ source: 'aws.ses', detail: { eventType: 'Delivery' } }))).toEqual({ batchItemFailures: [{ itemIdentifier: 'm0' }] });
  });
});
