import type { SESv2Client } from '@aws-sdk/client-sesv2';
import { config } from '#platform/config.ts';
import { logger } from '#platform/logger.ts';
import type { MailableAddress } from '#domain/notifications.ts';

/**
 * The mail port: one message to one address. Two adapters:
 * - `outbox` (default in `simulated` on this machine): the local stand-in for SES, which writes each
 *   message as an `.eml` file (lib/local/mailOutbox.ts). It is installed by the local wiring only, so
 *   no Lambda bundle carries it or the MIME composer it needs (docs/decisions/126);
 * - `ses` (every AWS stage with a sender identity): Amazon SES v2 SendEmail with simple content; SES
 *   builds the MIME message itself.
 * `delivered` is true only when the adapter accepted the message (the file is in the folder, SES
 * answered with a message id); a failure is reported, never thrown, so the caller can say so.
 * Addresses and bodies are never logged: a body can carry a credential (an invitation link).
 * The address is a `MailableAddress`: the sender consulted the suppression list for it
 * (functions/store/mailSuppressions.ts), so mail to a suppressed address is never attempted.
 */
export interface MailMessage {
  to: MailableAddress;
  subject: string;
  text: string;
  html?: string;
  /** Extra header lines (List-Unsubscribe on notifications); one line each. */
  headers?: Record<string, string>;
}

export type MailResult = { delivered: true; messageId: string } | { delivered: false; error: string };

export interface MailTransport {
  readonly name: string;
  /** Resolves with the message id once the message is accepted; rejects otherwise. */
  send(message: MailMessage & { from: string }): Promise<{ messageId: string }>;
}

/**
 * Each message names its stage's configuration set (MAIL_CONFIGURATION_SET): the identity is the
 * account's, shared by the stages in it (docs/decisions/105), so no default set on it can say
 * whose bounces these are.
 */
export class SesMailTransport implements MailTransport {
  readonly name = 'ses';

  /** Without a client, the stage's is made at the first message, when the SES module is first imported. */
  constructor(private sesClient?: SESv2Client) {}

  async send(message: MailMessage & { from: string }): Promise<{ messageId: string }> {
    const { SESv2Client, SendEmailCommand } = await import('./ses.ts');
    this.sesClient ??= new SESv2Client({ region: config().AWS_REGION });
    const configurationSet = config().MAIL_CONFIGURATION_SET;
    const utf8 = (Data: string) => ({ Data, Charset: 'UTF-8' });
    const sent = await this.sesClient.send(new SendEmailCommand({
      FromEmailAddress: message.from,
      Destination: { ToAddresses: [message.to] },
      Content: {
        Simple: {
          Subject: utf8(message.subject),
          Body: { Text: utf8(message.text), ...(message.html ? { Html: utf8(message.html) } : {}) },
          ...(message.headers ? { Headers: Object.entries(message.headers).map(([Name, Value]) => ({ Name, Value })) } : {}),
        },
      },
      ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
    }));
    if (!sent.MessageId) throw new Error('SES answered without a message id');
    return { messageId: sent.MessageId };
  }
}

let installed: MailTransport | undefined;
let localOutbox: (() => MailTransport) | undefined;

/** The local wiring's stand-in for SES (lib/local/mailOutbox.ts): what `outbox` names. */
export function provideMailOutbox(outbox: () => MailTransport): void {
  localOutbox = outbox;
}

/** Tests and wiring may install a transport; undefined goes back to the configured one. */
export function useMailTransport(transport: MailTransport | undefined): void {
  installed = transport;
}

export function mailTransportName(): 'outbox' | 'ses' | 'none' {
  const { MAIL_TRANSPORT, SERVICE_ENVIRONMENT } = config();
  return MAIL_TRANSPORT ?? (SERVICE_ENVIRONMENT === 'simulated' ? 'outbox' : 'ses');
}

/** False where nothing can be e-mailed (an AWS `simulated` stack without a sender identity): GET /notifications/preferences says so. */
export function mailConfigured(): boolean {
  return installed !== undefined || mailTransportName() !== 'none';
}

/** Where no transport is configured: every message is refused, and the caller says so. */
class NoMailTransport implements MailTransport {
  readonly name = 'none';
  constructor(private readonly reason = 'No mail transport is configured on this environment (no sender identity).') {}
  async send(): Promise<{ messageId: string }> {
    throw new Error(this.reason);
  }
}

function transport(): MailTransport {
  if (installed) return installed;
  if (mailTransportName() === 'none') return new NoMailTransport();
  if (mailTransportName() === 'ses') return (installed = new SesMailTransport());
  // The outbox adapter reads MAIL_OUTBOX_DIR on every message, so a reloaded configuration is obeyed.
  if (localOutbox) return (installed = localOutbox());
  return new NoMailTransport('The mail outbox is the local stand-in for SES; it is not installed in this process.');
}

export async function sendMail(message: MailMessage): Promise<MailResult> {
  const used = transport();
  try {
    const { messageId } = await used.send({ ...message, from: config().MAIL_FROM });
    return { delivered: true, messageId };
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    // The name only: a provider's message can quote the address.
    logger.warn('mail not delivered', { transport: used.name, error: error instanceof Error ? error.name : 'unknown' });
    return { delivered: false, error: `The e-mail could not be sent (${used.name}): ${reason.slice(0, 300)}` };
  }
}
