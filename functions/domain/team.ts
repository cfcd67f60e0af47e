import { createHash, randomBytes } from 'node:crypto';
import { roleRank, type Role } from '#domain/permissions.ts';
import { escapeHtml } from './html.ts';
import { publicLink } from './publicLinks.ts';
import { oneLine, quoted } from './plainText.ts';

/**
 * The rules of the team (contract: Team and API keys, Authentication; docs/decisions/051):
 * who may grant, change and remove which role, and what an invitation is made of.
 */

/** A member's role: `owner` is the organization key and is never assigned. */
export type MemberRole = Exclude<Role, 'owner'>;

/** Invited (link sent, not yet accepted), active (accepted; holds a key), removed (only ever in the answer to DELETE). */
export type MemberStatus = 'invited' | 'active' | 'removed';

/** Only a role strictly below the caller's own may be granted; `owner` never. */
export function mayGrant(callerRole: Role, wanted: Role): wanted is MemberRole {
  // Stryker disable next-line ConditionalExpression,StringLiteral: equivalent, owner ranks highest so the rank check refuses it too; kept as the rule's own words
  return wanted !== 'owner' && roleRank[wanted] < roleRank[callerRole];
}

/** A member can be changed, removed or re-invited only by a caller whose role is above the member's. */
export function mayManage(callerRole: Role, memberRole: Role): boolean {
  return roleRank[memberRole] < roleRank[callerRole];
}

/** Lowercased: two spellings of one address are one teammate. */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export interface InvitationToken {
  /** The credential, sent only in the e-mail: 32 random bytes, base64url (43 characters). */
  token: string;
  /** What is stored. */
  hash: string;
}

export function hashInvitationToken(token: string): string {
  // Stryker disable next-line StringLiteral: equivalent, a string is hashed as UTF-8 by default
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function newInvitationToken(): InvitationToken {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashInvitationToken(token) };
}

export function invitationExpiry(now: Date, ttlSeconds: number): Date {
  return new Date(now.getTime() + ttlSeconds * 1000);
}

/** The link a person opens; the token travels as the query parameter `token`. */
export function acceptLink(baseUrl: string, token: string): string {
  return publicLink(baseUrl, '/invitations/accept', token);
}

export interface InvitationEmail {
  subject: string;
  text: string;
  html: string;
}

/**
 * The invitation e-mail. The organization's name and the name the inviter typed are someone else's
 * text in a message from the service: each is shown as quoted data inside one of our sentences, never
 * as a line of its own (a name with line breaks and a link cannot write a paragraph), and escaped in
 * the HTML part (docs/decisions/109).
 */
export function invitationEmail(input: {
  organizationName: string;
  name: string | null;
  role: MemberRole;
  baseUrl: string;
  token: string;
  expiresAt: Date;
}): InvitationEmail {
  const link = acceptLink(input.baseUrl, input.token);
  const endpoint = publicLink(input.baseUrl, '/invitations/accept');
  const expires = input.expiresAt.toISOString();
  const organization = quoted(input.organizationName);
  const invited = `You are invited to join the organization ${organization} as ${input.role}.`;
  const addressed = input.name === null ? undefined : `The inviter gave your name as ${quoted(input.name)}.`;
  const text = [
    'Hello,',
    '',
    invited,
    ...(addressed ? [addressed] : []),
    '',
    'Open this link: it shows the invitation, and a button to accept it:',
    link,
    '',
    'or accept it with the API:',
    `curl -X POST ${endpoint} -H 'content-type: application/json' -d '{"token":"${input.token}"}'`,
    '',
    `The link works once and expires at ${expires}. Accepting it shows your API key once: store it safely.`,
    'If you did not expect this invitation, ignore this e-mail.',
    '',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>You are invited to join the organization <strong>${escapeHtml(organization)}</strong> as ${escapeHtml(input.role)}.${addressed ? ` ${escapeHtml(addressed)}` : ''}</p>`,
    `<p><a href="${escapeHtml(link)}">Open the invitation</a>: the page shows it, with a button to accept it.</p>`,
    `<p>Or accept it with the API: <code>${escapeHtml(`curl -X POST ${endpoint} -H 'content-type: application/json' -d '{"token":"${input.token}"}'`)}</code></p>`,
    `<p>The link works once and expires at ${escapeHtml(expires)}. Accepting it shows your API key once: store it safely.</p>`,
    '<p>If you did not expect this invitation, ignore this e-mail.</p>',
  ].join('\n');
  const subject = oneLine(`Invitation to join ${input.organizationName}`);
  return { subject, text, html };
}

/**
 * Invitation e-mails to one address from one organization (docs/decisions/109): at most two in any
 * minute (an invitation and an immediate re-send) and six in any 24 hours (the invitation and five
 * re-sends). Counted per address, not per member, so rescinding and inviting again does not start
 * afresh. Only e-mails the transport accepted count.
 */
export const invitationMailLimits: readonly { windowSeconds: number; max: number }[] = [
  { windowSeconds: 60, max: 2 },
  { windowSeconds: 24 * 3600, max: 6 },
];

/** The longest window: sends older than this no longer count and are dropped. */
export const invitationMailMemorySeconds = Math.max(...invitationMailLimits.map((limit) => limit.windowSeconds));

/** Seconds until one more invitation e-mail may go to an address already sent these (ISO times), or 0 when it may go now. */
export function invitationMailWait(sentAt: readonly string[], now: Date): number {
  const times = sentAt.map((at) => Date.parse(at)).sort((a, b) => a - b);
  let waitMs = 0;
  for (const { windowSeconds, max } of invitationMailLimits) {
    // Stryker disable next-line MethodExpression,ConditionalExpression,EqualityOperator: equivalent, a send out of the window can only be the max-th newest when fewer than max are in it, and then its wait is not positive
    const inWindow = times.filter((time) => time > now.getTime() - windowSeconds * 1000);
    if (inWindow.length < max) continue;
    // The send that must leave the window before one more fits in it.
    const leaving = inWindow[inWindow.length - max]!;
    waitMs = Math.max(waitMs, leaving + windowSeconds * 1000 - now.getTime());
  }
  return waitMs > 0 ? Math.max(1, Math.ceil(waitMs / 1000)) : 0;
}

/** The sends still remembered at `now`, with one more at `now`. */
export function withInvitationMail(sentAt: readonly string[], now: Date): string[] {
  const since = now.getTime() - invitationMailMemorySeconds * 1000;
  return [...sentAt.filter((at) => Date.parse(at) > since), now.toISOString()].sort();
}
