import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer from 'nodemailer';
import { config } from '#platform/config.ts';
import { standingInFor } from '#platform/awsStandIns.ts';
import { provideMailOutbox, type MailMessage, type MailTransport } from '#providers/mail.ts';

/**
 * The local stand-in for SES: each message becomes an RFC 5322 `.eml` file in MAIL_OUTBOX_DIR (default
 * `.local/outbox/` in the project root), where a person opens it with any mail client and the ops CLI
 * and the tests read it (lib/ops/outbox.ts). Importing this module installs it; only the local wiring
 * does (the local runtime, the admin CLI, the test set-up), so nodemailer rides in no Lambda bundle
 * (docs/decisions/126).
 */
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

provideMailOutbox(() => new OutboxMailTransport());
