import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './client.ts';
import { keys } from './keys.ts';

/**
 * Addresses mail must not go to: a permanent bounce or a complaint (docs/decisions/083, 094). One item
 * per lowercased address (`MAIL#<address> / SUPPRESSION`), the latest report wins. Written by SES's
 * feedback (functions/events/mailFeedback.ts) and, where there is no SES, by the ops CLI
 * (`admin mail bounce <address>`): one function, so both record the same thing. A member's later
 * verification outranks it for that member (functions/store/notifications.ts).
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

export async function recordSuppression(suppression: MailSuppression): Promise<void> {
  const email = suppression.email.toLowerCase();
  // SES writes its event time without milliseconds; the contract's timestamps have them.
  const suppressedAt = new Date(suppression.suppressedAt).toISOString();
  await dynamo().send(new PutCommand({
    TableName: tableName(),
    Item: { ...keys.mailSuppression(email), entity: mailSuppressionEntity, ...suppression, email, suppressedAt },
  }));
}

export async function getSuppression(email: string): Promise<MailSuppression | undefined> {
  const { Item } = await dynamo().send(new GetCommand({ TableName: tableName(), Key: keys.mailSuppression(email), ConsistentRead: true }));
  return Item as MailSuppression | undefined;
}
