import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import nodemailer from 'nodemailer';
import { config } from '#platform/config.ts';
import { logger } from '#platform/logger.ts';
import { standingInFor } from '#platform/awsStandIns.ts';
import type { MailableAddress } from '#domain/notifications.ts';

/**
 * The mail port: one message to one address. Two adapters, both building the RFC 5322 message
 * with nodemailer:
 * - `outbox` (default in `simulated`): the message is written as an `.eml` file into
 *   MAIL_OUTBOX_DIR (default `.local/outbox/` in the project root), where a person opens it with
 *   any mail client and the ops CLI and the tests read it (lib/ops/outbox.ts);
 * - `ses` (default elsewhere, and on every AWS stage): Amazon SES v2 SendEmail with the raw
 *   message.
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

const projectRoot = path.resolve(import.meta.dirname, '../..');

export function outboxDirectory(): string {
  return path.resolve(config().MAIL_OUTBOX_DIR ?? path.join(projectRoot, '.local', 'outbox'));
}

/** Writes each message as `<time>-<random>.eml`; written under a temporary name and renamed, so a reader never sees half a file. */
export class OutboxMailTransport implements MailTransport {
  readonly name = 'outbox';
  private readonly composer = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });

  constructor(private readonly directory: () => string = outboxDirectory) {}

  async send(message: MailMessage & { from: string }): Promise<{ messageId: string }> {
    // The outbox stands in for SES: the sending function must be one AWS would let send.
    return standingInFor({ action: 'ses:SendEmail', resourceVariable: 'MAIL_FROM' }, () => this.write(message));
  }

  private async write(message: MailMessage & { from: string }): Promise<{ messageId: string }> {
    const info = await this.composer.sendMail(message);
    const directory = this.directory();
    await mkdir(directory, { recursive: true });
    const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomBytes(4).toString('hex')}.eml`;
    const temporary = path.join(directory, `.${name}.tmp`);
    await writeFile(temporary, info.message as Buffer, { mode: 0o600 });
    await rename(temporary, path.join(directory, name));
    return { messageId: info.messageId };
  }
}

/**
 * Each message names its stage's configuration set (MAIL_CONFIGURATION_SET): the identity is the
 * account's, shared by the stages in it (docs/decisions/105), so no default set on it can say
 * whose bounces these are.
 */
export class SesMailTransport implements MailTransport {
  readonly name = 'ses';
  private readonly sender: ReturnType<typeof nodemailer.createTransport>;

  constructor(sesClient: SESv2Client = new SESv2Client({ region: config().AWS_REGION })) {
    this.sender = nodemailer.createTransport({ SES: { sesClient, SendEmailCommand } });
  }

  async send(message: MailMessage & { from: string }): Promise<{ messageId: string }> {
    const configurationSet = config().MAIL_CONFIGURATION_SET;
    const info = await this.sender.sendMail({ ...message, ...(configurationSet ? { ses: { ConfigurationSetName: configurationSet } } : {}) });
    return { messageId: info.messageId };
  }
}

let installed: MailTransport | undefined;

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
  async send(): Promise<{ messageId: string }> {
    throw new Error('No mail transport is configured on this environment (no sender identity).');
  }
}

function transport(): MailTransport {
  if (installed) return installed;
  if (mailTransportName() === 'none') return new NoMailTransport();
  // The outbox adapter reads MAIL_OUTBOX_DIR on every message, so a reloaded configuration is obeyed.
  installed = mailTransportName() === 'ses' ? new SesMailTransport() : new OutboxMailTransport();
  return installed;
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
