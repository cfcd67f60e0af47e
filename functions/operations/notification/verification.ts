import { verificationEmail, verificationLink } from '#domain/notifications.ts';
import { config, publicBaseUrl } from '#platform/config.ts';
import { ApiError } from '#platform/errors.ts';
import { sendMail } from '#providers/mail.ts';
import { mailableAddress, suppressedMessage } from '#store/mailSuppressions.ts';
import type { MemberItem, Stale } from '#store/members.ts';
import { issueVerification } from '#store/notifications.ts';

export interface VerificationSent {
  sent: boolean;
  email: string;
  expiresAt: string;
  reason?: string;
}

/**
 * A single-use link to the address on the member's own record; a re-send replaces the previous
 * link. `sent` is what the mail port said. Never attempted to a suppressed address (`sent: false`
 * with `reason`; docs/decisions/109): a bounced address bounces again and a complaint is the mailbox
 * asking for no mail, and either harms every organization's mail. An operator lifts a suppression
 * (`admin mail unsuppress`). `stale` when the member moved meanwhile.
 */
export async function sendVerification(member: MemberItem, organizationName: string): Promise<VerificationSent | Stale> {
  // Members join by an e-mailed invitation, so every member written today has one; the check stays for any that has none.
  if (!member.email) throw new ApiError('no_member_email', 'Your member record has no e-mail address to verify.');
  const to = await mailableAddress(member.email, member.emailVerifiedAt);
  const issued = await issueVerification(member, config().EMAIL_VERIFICATION_TTL_SECONDS);
  if (issued === 'stale') return issued;
  const expiresAt = issued.expiresAt.toISOString();
  if (!to) return { sent: false, email: member.email, expiresAt, reason: suppressedMessage };
  const message = verificationEmail({ organizationName, link: verificationLink(publicBaseUrl(), issued.token), expiresAt: issued.expiresAt });
  const sent = await sendMail({ to, ...message });
  return { sent: sent.delivered, email: member.email, expiresAt, ...(sent.delivered ? {} : { reason: sent.error }) };
}
