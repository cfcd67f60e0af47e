import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';
import type { MailableAddress } from '#domain/notifications.ts';

/**
 * Addresses mail must not go to: a permanent bounce or a complaint (docs/decisions/083, 094, 109). One
 * item per lowercased address (`MAIL#<address> / SUPPRESSION`), the latest report wins. Written by SES's
 * feedback (functions/events/mailFeedback.ts) and, where there is no SES, by the ops CLI
 * (`admin mail bounce <address>`): one function, so both record the same thing. Only an operator lifts
 * one (`admin mail unsuppress <address>`). A member's verification after it outranks it for that member.
 *
 * Mail to a suppressed address is never attempted, whoever sends it: the mail port
 * (functions/providers/mail.ts) takes only a `MailableAddress`, and the only way to have one is to ask
 * here, so a sender that forgot to consult the list does not compile.
 */
export const mailSuppressionEntity = 'mailSuppression';

export interface MailSuppression {
  email: string;
  reason: string;
  suppressedAt: string;
  /** What reported it: the SES message and event, or the operator. */
  sesMessageId?: string;
  eventId?: string;
  source: 'ses' | 'operator';
}

/** An address the suppression list was consulted for and allows: made only here. */
export type { MailableAddress };

export async function recordSuppression(suppression: MailSuppression): Promise<void> {
  const email = suppression.email.toLowerCase();
  // SES writes its event time without milliseconds; the contract's timestamps have them.
  const suppressedAt = new Date(suppression.suppressedAt).toISOString();
  await dynamo().send(new PutCommand({
    TableName: tableName(),
    Item: { ...keys.mailSuppression(email), entity: mailSuppressionEntity, ...suppression, email, suppressedAt },
  }));
}

/** An operator's word that the address receives mail again; the suppression it lifted, if there was one. */
export async function liftSuppression(email: string): Promise<MailSuppression | undefined> {
  const { Attributes } = await dynamo().send(new DeleteCommand({ TableName: tableName(), Key: keys.mailSuppression(email.toLowerCase()), ReturnValues: 'ALL_OLD' }));
  return Attributes as MailSuppression | undefined;
}

export async function getSuppression(email: string): Promise<MailSuppression | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.mailSuppression(email), ConsistentRead: true }));
  return Item as MailSuppression | undefined;
}

/** The suppression that stands: none, or one recorded after the address was last verified (`verifiedAt`, by its member). */
export function standingSuppression(suppression: MailSuppression | undefined, verifiedAt?: string): MailSuppression | undefined {
  if (!suppression) return undefined;
  if (verifiedAt && verifiedAt > suppression.suppressedAt) return undefined;
  return suppression;
}

/** The address, when no suppression of it stands; the suppression already read (a batch read, say) is given. */
export function clearedAddress(email: string, suppression: MailSuppression | undefined, verifiedAt?: string): MailableAddress | undefined {
  return email && !standingSuppression(suppression, verifiedAt) ? (email as MailableAddress) : undefined;
}

/** Reads the address's suppression and answers the address if mail may go to it. */
export async function mailableAddress(email: string, verifiedAt?: string): Promise<MailableAddress | undefined> {
  if (!email) return undefined;
  return clearedAddress(email, await getSuppression(email.toLowerCase()), verifiedAt);
}

/** What a sender says instead of sending. */
export const suppressedMessage =
  'No e-mail was attempted: the address is on the suppression list (a permanent bounce or a complaint). An operator lifts it with `admin mail unsuppress <address>` once the address receives mail again.';
