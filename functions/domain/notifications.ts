import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EventType } from '#schemas/webhooks.ts';
import { escapeHtml } from './html.ts';
import { publicLink } from './publicLinks.ts';
import { formatMoney } from './money.ts';
import { oneLine, quoted } from './plainText.ts';
import { maskAccount } from './accountMask.ts';

/**
 * E-mail notifications (contract: Email notifications, Events; docs/decisions/094): the event types a
 * member may choose, the links the e-mails carry and the messages (the pages those links open are made by the page kit, functions/platform/page.ts).
 * Pure: the store keeps the choices, the mailer sends.
 */
declare const consulted: unique symbol;
/**
 * An address the suppression list was consulted for and allows. Only the store makes one
 * (functions/store/mailSuppressions.ts); the mail port takes nothing else.
 */
export type MailableAddress = string & { readonly [consulted]: true };

export const notificationEventTypes: readonly EventType[] = EventType.options;

export function isNotificationEventType(type: string): type is EventType {
  return (notificationEventTypes as readonly string[]).includes(type);
}

/** The verification link a person clicks: GET verifies and shows a page (its token is single use). */
export const verificationLink = (baseUrl: string, token: string) => publicLink(baseUrl, '/notifications/verify', token);
/** The `List-Unsubscribe` link: GET shows a button, POST (RFC 8058 one-click) unsubscribes. */
export const unsubscribeLink = (baseUrl: string, token: string) => publicLink(baseUrl, '/notifications/unsubscribe', token);

// ---- Unsubscribe tokens ------------------------------------------------------------------

export interface UnsubscribeClaims {
  organizationId: string;
  memberId: string;
  eventType: EventType;
  /**
   * The version of the member's key that signed it (docs/decisions/110). The member's key rotation
   * makes a new version, which retires every link signed under an older one; removal retires all.
   * A token from before versions names none and is version 1, the first key's.
   */
  keyVersion: number;
}

/** A member's own key for its unsubscribe links: made when the address is verified, kept sealed on the member. */
export function newUnsubscribeKey(): string {
  return randomBytes(32).toString('base64url');
}

function signature(key: string, payload: string): Buffer {
  // Stryker disable next-line StringLiteral: equivalent, a string is read as UTF-8 by default
  return createHmac('sha256', key).update(payload, 'utf8').digest();
}

/**
 * `<claims>.<HMAC-SHA256 of claims under the member's key>`, base64url: it names the member, the
 * event type and the key's version in the clear (the store must find the member and the key to check
 * it) and cannot be made without the key, so nobody can unsubscribe someone else or from another event.
 */
export function unsubscribeToken(key: string, claims: UnsubscribeClaims): string {
  // Stryker disable next-line StringLiteral: equivalent, a string is read as UTF-8 by default
  const payload = Buffer.from(JSON.stringify([claims.organizationId, claims.memberId, claims.eventType, claims.keyVersion]), 'utf8').toString('base64url');
  return `${payload}.${signature(key, payload).toString('base64url')}`;
}

/** The claims a token names, not yet checked: undefined for anything that is not one of ours. */
export function readUnsubscribeToken(token: string): UnsubscribeClaims | undefined {
  const [payload, mac, ...rest] = token.split('.');
  if (!payload || !mac || rest.length > 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || (parsed.length !== 3 && parsed.length !== 4)) return undefined;
    const [organizationId, memberId, eventType, keyVersion = 1] = parsed as unknown[];
    if (![organizationId, memberId, eventType].every((part) => typeof part === 'string' && part.length > 0)) return undefined;
    if (!Number.isSafeInteger(keyVersion) || (keyVersion as number) < 1) return undefined;
    if (!isNotificationEventType(eventType as string)) return undefined;
    return { organizationId: organizationId as string, memberId: memberId as string, eventType: eventType as EventType, keyVersion: keyVersion as number };
  } catch {
    return undefined;
  }
}

/** Constant-time check of the token's signature under the member's key. */
export function isUnsubscribeTokenValid(key: string, token: string): boolean {
  const [payload, mac] = token.split('.');
  if (!payload || !mac) return false;
  const expected = signature(key, payload);
  const given = Buffer.from(mac, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// ---- Messages ----------------------------------------------------------------------------

export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

type MoneyLike = { amount: string; currency: string; scale?: number };

/** Free text from a provider or an operator could quote an account: any long run of digits keeps its last four only. */
function withoutAccountNumbers(text: string): string {
  return text.replace(/[A-Z]{0,2}\d[\d -]{6,}\d/g, (run) => maskAccount(run.replace(/[ -]/g, '')));
}

function moneyOf(value: unknown): MoneyLike | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { amount, currency, scale } = value as Record<string, unknown>;
  if (typeof amount !== 'string' || typeof currency !== 'string') return undefined;
  return { amount, currency, ...(typeof scale === 'number' ? { scale } : {}) };
}

interface Described {
  /** The sentence that is also the subject. */
  headline: string;
  operationId: string;
  /** Where the integrator reads the whole object. */
  read: string;
  figures: [string, MoneyLike | undefined][];
  state?: string;
  note?: string;
}

function describe(type: EventType, data: Record<string, unknown>): Described {
  const text = (field: string) => (typeof data[field] === 'string' ? (data[field] as string) : undefined);
  const failure = text('failure');
  const note = failure ? withoutAccountNumbers(failure) : undefined;
  const shown = (value: MoneyLike | undefined, after: string) => (value ? `: ${formatMoney(value)} ${after}` : '');
  if (type.startsWith('transaction.')) {
    const id = text('transactionId') ?? 'unknown';
    const received = moneyOf(data.receiveAmount);
    const headline = {
      'transaction.paid_out': `Payment ${id} paid out${shown(received, 'sent to the recipient')}`,
      'transaction.reconciled': `Payment ${id} reconciled${shown(received, 'paid')}`,
      'transaction.refunded': `Payment ${id} refunded: the held USDC is back in your balance`,
      'transaction.in_doubt': `Payment ${id} is in doubt: it is parked until operations confirm the payout`,
    }[type as 'transaction.paid_out'];
    const delta = typeof data.payoutDelta === 'object' && data.payoutDelta !== null ? (data.payoutDelta as Record<string, unknown>) : {};
    return {
      headline,
      operationId: id,
      read: `GET /transactions/${id}`,
      figures: [['Paid to the recipient', received], ['Quoted', moneyOf(delta.quoted)], ['Difference from the quote', moneyOf(delta.difference)]],
      state: text('state'),
      note,
    };
  }
  if (type.startsWith('onramp.')) {
    const id = text('onRampId') ?? 'unknown';
    const net = moneyOf(data.net);
    return {
      headline: type === 'onramp.delivered' ? `Deposit ${id} delivered${shown(net, 'credited to your balance')}` : `Deposit ${id} refunded: the payer's money was returned`,
      operationId: id,
      read: `GET /treasury/onramp/${id}`,
      figures: [['Received', moneyOf(data.gross)], ['Fee', moneyOf(data.fee)], ['Credited', net]],
      state: text('state'),
      note,
    };
  }
  const id = text('offRampId') ?? 'unknown';
  const net = moneyOf(data.net);
  return {
    headline: `Off-ramp ${id} paid${shown(net, 'paid out')}`,
    operationId: id,
    read: `GET /treasury/offramp/${id}`,
    figures: [['USDC taken', moneyOf(data.credited)], ['Fee', moneyOf(data.fee)], ['Delivery fee', moneyOf(data.deliveryFee)], ['Paid out', net]],
    state: text('state'),
    note,
  };
}

/**
 * The e-mail of one event to one member: what happened (the subject says it), the figures as money
 * with their currency, the operation id, and how to stop these e-mails. `data` is the matching GET's
 * body as the event carries it; only ids, states, amounts and a masked note are shown, never an account.
 * Text of others (the organization's name, a provider's or operator's note) is quoted data in its
 * row (docs/decisions/109).
 */
export function notificationEmail(input: {
  type: EventType;
  data: unknown;
  organizationName: string;
  baseUrl: string;
  unsubscribeUrl: string;
}): EmailContent {
  const data = typeof input.data === 'object' && input.data !== null ? (input.data as Record<string, unknown>) : {};
  const described = describe(input.type, data);
  const figures = described.figures.filter((figure): figure is [string, MoneyLike] => figure[1] !== undefined).map(([label, value]) => [label, formatMoney(value)] as const);
  const rows: (readonly [string, string])[] = [
    ['Operation id', described.operationId],
    ...figures,
    ...(described.state ? [['State', described.state] as const] : []),
    ...(described.note ? [['Note', quoted(described.note)] as const] : []),
    ['Organization', quoted(input.organizationName)],
  ];
  const readAt = publicLink(input.baseUrl, described.read.replace(/^GET /, ''));
  const why = `You receive this e-mail because you chose ${input.type} in your notification preferences.`;
  const text = [
    'Hello,',
    '',
    `${described.headline}.`,
    '',
    ...rows.map(([label, value]) => `${label}: ${value}`),
    '',
    `Read it with ${described.read} (${readAt}).`,
    '',
    why,
    `Stop e-mails about ${input.type}: ${input.unsubscribeUrl}`,
    '',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p><strong>${escapeHtml(described.headline)}.</strong></p>`,
    '<table>',
    ...rows.map(([label, value]) => `<tr><th align="left">${escapeHtml(label)}</th><td>${escapeHtml(value)}</td></tr>`),
    '</table>',
    `<p>Read it with <code>${escapeHtml(described.read)}</code>.</p>`,
    `<p>${escapeHtml(why)} <a href="${escapeHtml(input.unsubscribeUrl)}">Stop e-mails about ${escapeHtml(input.type)}</a>.</p>`,
  ].join('\n');
  return { subject: oneLine(described.headline), text, html };
}

/** The verification e-mail: one link, single use, with its expiry; the organization's name is quoted data (109). */
export function verificationEmail(input: { organizationName: string; link: string; expiresAt: Date }): EmailContent {
  const organization = quoted(input.organizationName);
  const expires = input.expiresAt.toISOString();
  const text = [
    'Hello,',
    '',
    `Confirm this address to receive e-mail notifications from the organization ${organization}:`,
    input.link,
    '',
    `The link works once and expires at ${expires}. A newer link replaces this one.`,
    'If you did not ask for this, ignore this e-mail: nothing is sent to an address until it is verified.',
    '',
  ].join('\n');
  const html = [
    '<p>Hello,</p>',
    `<p>Confirm this address to receive e-mail notifications from the organization <strong>${escapeHtml(organization)}</strong>.</p>`,
    `<p><a href="${escapeHtml(input.link)}">Verify this address</a></p>`,
    `<p>The link works once and expires at ${escapeHtml(expires)}. A newer link replaces this one.</p>`,
    '<p>If you did not ask for this, ignore this e-mail: nothing is sent to an address until it is verified.</p>',
  ].join('\n');
  return { subject: oneLine(`Verify your address for ${input.organizationName} notifications`), text, html };
}
