import { sendEmailVerification } from '#contract/routes.ts';
import { verificationEmail, verificationLink } from '#domain/notifications.ts';
import { config, publicBaseUrl } from '#platform/config.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { sendMail } from '#providers/mail.ts';
import { mailableAddress, suppressedMessage } from '#store/mailSuppressions.ts';
import { issueVerification } from '#store/notifications.ts';
import { withCallingMember } from './callingMember.ts';

/**
 * POST /notifications/verify/send: a single-use link to the address on the caller's own member
 * record; a re-send replaces the previous link. `sent` is what the mail port said. Never attempted to
 * a suppressed address (`sent: false` with `reason`; docs/decisions/109): a bounced address bounces
 * again and a complaint is the mailbox asking for no mail, and either harms every organization's
 * mail. An operator lifts a suppression (`admin mail unsuppress`).
 */
export const handler = endpoint(sendEmailVerification, async ({ caller }) =>
  withCallingMember(caller, async (member) => {
    // Members join by an e-mailed invitation, so every member written today has one; the check stays for any that has none.
    if (!member.email) throw new ApiError('no_member_email', 'Your member record has no e-mail address to verify.');
    const to = await mailableAddress(member.email, member.emailVerifiedAt);
    const issued = await issueVerification(member, config().EMAIL_VERIFICATION_TTL_SECONDS);
    if (issued === 'stale') return issued;
    if (!to) return ok({ sent: false, email: member.email, expiresAt: issued.expiresAt.toISOString(), reason: suppressedMessage }, 202);
    const message = verificationEmail({
      organizationName: caller.organizationName,
      link: verificationLink(publicBaseUrl(), issued.token),
      expiresAt: issued.expiresAt,
    });
    const sent = await sendMail({ to, ...message });
    return ok({ sent: sent.delivered, email: member.email, expiresAt: issued.expiresAt.toISOString(), ...(sent.delivered ? {} : { reason: sent.error }) }, 202);
  }));
