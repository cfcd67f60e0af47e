import { Readable } from 'node:stream';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { afterEach, describe, expect, it } from 'vitest';
import { reloadConfig } from '#platform/config.ts';
import { SesMailTransport } from '#providers/mail.ts';
import type { MailableAddress } from '#store/mailSuppressions.ts';

/**
 * The SES adapter as it talks to SES v2: the real SDK, with the HTTP request it would
 * send read back instead of sent (the SDK's own request-handler seam; nothing of ours is replaced).
 */
function recordingClient(requests: { path: string; body: Record<string, any> }[]): SESv2Client {
  return new SESv2Client({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    requestHandler: {
      handle: async (request: { path: string; body: Uint8Array | string }) => {
        requests.push({ path: request.path, body: JSON.parse(Buffer.from(request.body).toString('utf8')) as Record<string, any> });
        return { response: { statusCode: 200, headers: { 'content-type': 'application/json' }, body: Readable.from([Buffer.from(JSON.stringify({ MessageId: 'ses-message-1' }))]) } };
      },
    } as never,
  });
}

// The transport alone: the suppression list is the sender's to consult (functions/store/mailSuppressions.ts).
const message = { to: 'ana@example.com' as MailableAddress, from: '"Payments" <no-reply@payments.example.com>', subject: 'Verify your address', text: 'Open the link.' };

describe('SES mail transport', () => {
  afterEach(() => {
    delete process.env.MAIL_CONFIGURATION_SET;
    reloadConfig();
  });

  it("names the stage's configuration set on every message, so bounces come back to this stage", async () => {
    process.env.MAIL_CONFIGURATION_SET = 'payments-sandbox';
    reloadConfig();
    const requests: { path: string; body: Record<string, any> }[] = [];
    const sent = await new SesMailTransport(recordingClient(requests)).send(message);
    expect(sent.messageId).toBeTruthy();
    expect(requests).toHaveLength(1);
    expect(requests[0]!.path).toBe('/v2/email/outbound-emails');
    expect(requests[0]!.body).toMatchObject({
      ConfigurationSetName: 'payments-sandbox',
      FromEmailAddress: message.from,
      Destination: { ToAddresses: ['ana@example.com'] },
      Content: { Simple: { Subject: { Data: 'Verify your address', Charset: 'UTF-8' }, Body: { Text: { Data: 'Open the link.', Charset: 'UTF-8' } } } },
    });
    expect(requests[0]!.body.Content.Simple.Body).not.toHaveProperty('Html');
  });

  it('sends the HTML part and the extra header lines (List-Unsubscribe) as SES message headers', async () => {
    const requests: { path: string; body: Record<string, any> }[] = [];
    const unsubscribe = '<https://payments.example.com/notifications/unsubscribe?token=t>';
    await new SesMailTransport(recordingClient(requests)).send({ ...message, html: '<p>Open the link.</p>', headers: { 'List-Unsubscribe': unsubscribe, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } });
    expect(requests[0]!.body.Content.Simple).toMatchObject({
      Body: { Html: { Data: '<p>Open the link.</p>', Charset: 'UTF-8' } },
      Headers: [{ Name: 'List-Unsubscribe', Value: unsubscribe }, { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' }],
    });
  });

  it('names none where the stage has none', async () => {
    const requests: { path: string; body: Record<string, any> }[] = [];
    await new SesMailTransport(recordingClient(requests)).send(message);
    expect(requests[0]!.body).not.toHaveProperty('ConfigurationSetName');
  });
});
