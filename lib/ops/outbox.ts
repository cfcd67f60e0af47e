import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { simpleParser, type AddressObject } from 'mailparser';

/**
 * Reading the local mail outbox (lib/local/mailOutbox.ts writes one `.eml` file per message)
 * the way a person reads the e-mail: the MIME message is parsed and decoded like a mail client
 * does, the links are taken from the plain-text body, and an invitation token is the `token`
 * query parameter of the accept link. The ops CLI (`admin -- mail latest`) and the tests use it.
 */
export interface OutboxMessage {
  file: string;
  to: string[];
  from: string;
  subject: string;
  date: string | null;
  text: string;
  /** The HTML part, when the message has one. */
  html: string | null;
  links: string[];
  /** Header lines by lowercased name, unfolded (List-Unsubscribe and the like, as a mail client reads them). */
  headers: Record<string, string>;
}

function addresses(field: AddressObject | AddressObject[] | undefined): string[] {
  const objects = field === undefined ? [] : Array.isArray(field) ? field : [field];
  return objects.flatMap((object) => object.value.map((entry) => entry.address ?? '')).filter(Boolean);
}

export async function readMessage(file: string): Promise<OutboxMessage> {
  const parsed = await simpleParser(await readFile(file));
  const text = parsed.text ?? '';
  return {
    file,
    to: addresses(parsed.to),
    from: parsed.from?.text ?? '',
    subject: parsed.subject ?? '',
    date: parsed.date ? parsed.date.toISOString() : null,
    text,
    html: typeof parsed.html === 'string' ? parsed.html : null,
    // A link closing a sentence or a parenthesis in prose ("(https://…/tx-1).") ends before that punctuation.
    links: [...text.matchAll(/https?:\/\/[^\s<>"']+/g)].map((match) => match[0].replace(/[).,;:!?]+$/, '')),
    headers: Object.fromEntries(parsed.headerLines.map(({ key, line }) => [key, line.slice(line.indexOf(':') + 1).replace(/\r?\n(?=[ \t])/g, '').trim()])),
  };
}

/** Every message in the folder, oldest first (file names start with the time they were written). */
export async function readOutbox(directory: string): Promise<OutboxMessage[]> {
  let names: string[];
  try {
    names = await readdir(directory);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files = names.filter((name) => name.endsWith('.eml')).sort();
  return Promise.all(files.map((name) => readMessage(path.join(directory, name))));
}

/** The newest message to `address` (case-insensitive), if any. */
export async function latestMessageTo(directory: string, address: string): Promise<OutboxMessage | undefined> {
  const wanted = address.toLowerCase();
  const messages = await readOutbox(directory);
  return messages.reverse().find((message) => message.to.some((to) => to.toLowerCase() === wanted));
}

/** The token of the message's accept link (`.../invitations/accept?token=...`), as a person would copy it. */
export function invitationTokenOf(message: OutboxMessage): string | undefined {
  for (const link of message.links) {
    const url = new URL(link);
    if (url.pathname.endsWith('/invitations/accept')) {
      const token = url.searchParams.get('token');
      if (token) return token;
    }
  }
  return undefined;
}
