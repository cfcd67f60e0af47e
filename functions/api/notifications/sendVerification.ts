import { sendEmailVerification } from '#contract/routes.ts';
import { verificationEmail, verificationLink } from '#domain/notifications.ts';
import { config, publicBaseUrl } from '#platform/config.ts';
import { endpoint, ok } from '#platform/endpoint.ts';
import { ApiError } from '#platform/errors.ts';
import { sendMail } from '#providers/mail.ts';
import { issueVerification } from '#store/notifications.ts';
import { withCallingMember } from './callingMember.ts';

/**
 * POST /notifications/verify/send: a single-use link to the address on the caller's own member
 * record; a re-send replaces the previous link. `sent` is what the mail port said. Sent even to a
 * suppressed address: verifying again is how a member lifts its suppression.
 */
export const handler = endpoint(sendEmailVerification, async ({ caller }) =>
  withCallingMember(caller, async (member) => {
    // Members join by an e-mailed invitation, so every member written today has one; the check stays for any that has none.
    if (!member.email) throw new ApiError('no_member_email', 'Your member record has no e-mail address to verify.');
    const issued = await issueVerification(member, config().EMAIL_VERIFICATION_TTL_SECONDS);
    if (issued === 'stale') return issued;
    const message = verificationEmail({
      organizationName: caller.organizationName,
      link: verificationLink(publicBaseUrl(), issued.token),
      expiresAt: issued.expiresAt,
    });
    const sent = await sendMail({ to: member.email, ...message });
    return ok({ sent: sent.delivered, email: member.email, expiresAt: issued.expiresAt.toISOString() }, 202);
  }));
