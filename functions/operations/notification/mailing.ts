import pMap from 'p-map';
import { notificationEmail, unsubscribeLink, unsubscribeToken } from '#domain/notifications.ts';
import { publicBaseUrl } from '#platform/config.ts';
import { logger } from '#platform/logger.ts';
import type { BatchReads } from '#platform/queueConsumer.ts';
import { sendMail } from '#providers/mail.ts';
import type { MailableAddress } from '#store/mailSuppressions.ts';
import { claimNotificationMail, markNotificationMailSent, notifiableAddress, releaseNotificationMail, subscribersOf } from '#store/notifications.ts';
import type { MemberItem } from '#store/members.ts';
import { hasUnsubscribeKey, openUnsubscribeKey, unsubscribeKeyVersion } from '#store/unsubscribeKeys.ts';
import { getOrganization } from '#store/organizations.ts';
import type { OutboxEvent } from '#store/outbox.ts';
import type { EventType } from '#schemas/webhooks.ts';

/**
 * A contract event's e-mails (the event rule target functions/events/notificationMailer.ts): one e-mail per
 * member who chose the event's type, is still on the team, has verified the address and is not
 * suppressed since, through the mail port (docs/decisions/094).
 *
 * Once per member and event under at-least-once delivery: a marker keyed by the outbox event id and
 * the member is claimed (`sending`) before the send and set `sent` after it. A repeated delivery finds
 * `sent` and sends nothing. A claim left `sending` longer than the lease (the attempt died between
 * claim and `sent`) is taken over by the next delivery, which sends: the one window for a second
 * e-mail is a death after the transport accepted the message and before `sent` was written, chosen
 * over losing the e-mail. A member whose send fails is given back its claim and the message is
 * reported failed, so the queue redelivers it; members already sent are skipped then.
 */
const claimLeaseMs = 60_000;
/** Members mailed at once: a few hundred recipients fit one 30 s delivery; a retry goes on from the markers. */
const concurrentSends = 8;

export async function mailNotification(detail: OutboxEvent & { type: EventType }, reads: BatchReads): Promise<void> {
  const { organizationId, type } = detail;
  // Every type's subscribers at once: the other events of the batch are answered by the same read.
  const subscribers = await reads(`subscribers:${organizationId}`, () => subscribersOf(organizationId));
  const recipients = subscribers.flatMap(({ member, suppression, eventTypes }) => {
    if (!eventTypes.includes(type)) return [];
    // The member's own record decides (a stale subscription item of a changed choice sends nothing).
    const to = notifiableAddress(member, suppression);
    return to && (member.notifyEvents ?? []).includes(detail.type) && hasUnsubscribeKey(member) ? [{ member, to }] : [];
  });
  if (recipients.length === 0) return;
  const organization = await reads(`organization:${organizationId}`, () => getOrganization(organizationId));
  let failed = 0;
  await pMap(
    recipients,
    async (recipient) => {
      // One opening of each member's key per batch of events (a KMS Decrypt in AWS).
      const key = await reads(`unsubscribeKey:${organizationId}:${recipient.member.id}:${unsubscribeKeyVersion(recipient.member)}`, () => openUnsubscribeKey(recipient.member));
      if (!(await mailOne(detail, recipient, key!, organization?.name ?? detail.organizationId))) failed += 1;
    },
    { concurrency: concurrentSends },
  );
  if (failed > 0) throw new Error(`${failed} of ${recipients.length} notification e-mails were not sent; the delivery is retried`);
}

async function mailOne(
  event: OutboxEvent & { type: EventType },
  { member, to }: { member: MemberItem; to: MailableAddress },
  unsubscribeKey: { key: string; version: number },
  organizationName: string,
): Promise<boolean> {
  const claim = await claimNotificationMail(event.id, member.id, claimLeaseMs);
  if (claim.outcome === 'sent') return true;
  if (claim.outcome === 'busy') return false;
  const baseUrl = publicBaseUrl();
  const claims = { organizationId: member.organizationId, memberId: member.id, eventType: event.type, keyVersion: unsubscribeKey.version };
  const unsubscribeUrl = unsubscribeLink(baseUrl, unsubscribeToken(unsubscribeKey.key, claims));
  const content = notificationEmail({ type: event.type, data: event.data, organizationName, baseUrl, unsubscribeUrl });
  const sent = await sendMail({
    to,
    ...content,
    // RFC 2369 and RFC 8058: mail clients show an unsubscribe button that POSTs List-Unsubscribe=One-Click to the link.
    headers: { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  });
  if (!sent.delivered) {
    await releaseNotificationMail(event.id, member.id, claim.claimedAt);
    logger.warn('notification e-mail not sent', { eventId: event.id, memberId: member.id, type: event.type });
    return false;
  }
  await markNotificationMailSent(event.id, member.id, sent.messageId);
  return true;
}
