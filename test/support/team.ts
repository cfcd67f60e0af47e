import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { invitationTokenOf, latestMessageTo, readOutbox, type OutboxMessage } from '../../lib/ops/outbox.ts';
import { reloadConfig } from '#platform/config.ts';
import { eventually } from './eventually.ts';
import { call } from './service.ts';

/**
 * Team helpers for end-to-end tests: each test file gets a mail outbox of its own (set before the
 * service starts), and a teammate joins as a person would: invited over HTTP, the e-mail read from
 * the outbox, the token taken from the accept link, the invitation accepted over HTTP.
 */
export function useTemporaryOutbox(): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'payments-outbox-'));
  process.env.MAIL_OUTBOX_DIR = directory;
  reloadConfig();
  return directory;
}

export function outboxDirectory(): string {
  const directory = process.env.MAIL_OUTBOX_DIR;
  if (!directory) throw new Error('call useTemporaryOutbox() before the service starts');
  return directory;
}

let counter = 0;
/** An address no other test uses. */
export function uniqueEmail(label = 'teammate'): string {
  counter += 1;
  return `${label}.${Date.now().toString(36)}.${counter}@example.com`;
}

/** The newest e-mail to `email`, and the token of its accept link. */
export async function invitationMail(email: string): Promise<{ message: OutboxMessage; token: string }> {
  const message = await latestMessageTo(outboxDirectory(), email);
  expect(message, `an e-mail to ${email} in the outbox`).toBeDefined();
  const token = invitationTokenOf(message!);
  expect(token, 'a token in the accept link').toBeDefined();
  return { message: message!, token: token! };
}

export interface Teammate {
  memberId: string;
  email: string;
  role: string;
  apiKey: string;
}

export async function inviteAndAccept(service: LocalService, inviterKey: string, role: string, email = uniqueEmail(role)): Promise<Teammate> {
  const invited = await call(service, 'POST', '/members/invitations', { apiKey: inviterKey, body: { email, role, name: `A ${role}` } });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  expect(invited.body.emailDelivered).toBe(true);
  const { token } = await invitationMail(email);
  const accepted = await call(service, 'POST', '/invitations/accept', { body: { token } });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  return { memberId: accepted.body.member.id, email, role, apiKey: accepted.body.apiKey };
}

/**
 * The path and query of the link to `pathname` in the newest e-mail to `email` whose subject matches,
 * once it is in the outbox (the e-mails name the public base URL; a test's service has its own port).
 */
export async function mailedLink(email: string, subject: RegExp, pathname: string): Promise<string> {
  return eventually(async () => {
    const message = (await readOutbox(outboxDirectory())).reverse().find((candidate) => candidate.to.includes(email) && subject.test(candidate.subject));
    const link = message?.links.find((candidate) => new URL(candidate).pathname === pathname);
    return link ? `${new URL(link).pathname}${new URL(link).search}` : undefined;
  }, { what: `a ${pathname} link e-mailed to ${email}`, timeoutMs: 30_000 });
}
