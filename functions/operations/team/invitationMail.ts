import { invitationEmail } from '#domain/team.ts';
import { publicBaseUrl } from '#platform/config.ts';
import { sendMail } from '#providers/mail.ts';
import { logger } from '#platform/logger.ts';
import { suppressedMessage, type MailableAddress } from '#store/mailSuppressions.ts';
import { memberView, releaseInvitationMail, type IssuedInvitation } from '#store/members.ts';
import type { InvitationResult } from '#schemas/team.ts';

/**
 * E-mails an invitation through the mail port and shapes the answer of POST /members/invitations
 * and POST /members/{memberId}/invitations: `emailDelivered` is what the port said, and a failure
 * comes with `emailError` (the invitation stands; re-send it when the mail works again). An address
 * on the suppression list (`to` undefined) is never mailed: the answer says
 * so. `to` is read before the invitation is written (`mailableAddress`): once it is written nothing
 * may fail the request, or a caller told 503 sends it again and meets its own invitation (409). So an
 * e-mail not sent gives back its place in the address's re-send limit (docs/decisions/109) at best:
 * a failure there is logged, not answered.
 */
export async function mailInvitation(organizationName: string, invitation: IssuedInvitation, to: MailableAddress | undefined): Promise<InvitationResult> {
  const { member, token, expiresAt } = invitation;
  const sent = to
    ? await sendMail({ to, ...invitationEmail({ organizationName, name: member.name, role: member.role, baseUrl: publicBaseUrl(), token, expiresAt }) })
    : { delivered: false as const, error: suppressedMessage };
  if (!sent.delivered) {
    await releaseInvitationMail(member.organizationId, member.email, invitation.mailedAt).catch((error: unknown) =>
      logger.warn('an unsent invitation e-mail kept its place in the re-send limit', { memberId: member.id, error }),
    );
  }
  return {
    emailDelivered: sent.delivered,
    ...(sent.delivered ? {} : { emailError: sent.error }),
    member: memberView(member),
  };
}
