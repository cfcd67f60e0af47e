import { invitationEmail } from '#domain/team.ts';
import { publicBaseUrl } from '#platform/config.ts';
import { sendMail } from '#providers/mail.ts';
import { mailableAddress, suppressedMessage } from '#store/mailSuppressions.ts';
import { memberView, releaseInvitationMail, type IssuedInvitation } from '#store/members.ts';
import type { InvitationResult } from '#schemas/team.ts';

/**
 * E-mails an invitation through the mail port and shapes the answer of POST /members/invitations
 * and POST /members/{memberId}/invitations: `emailDelivered` is what the port said, and a failure
 * comes with `emailError` (the invitation stands; re-send it when the mail works again). An address
 * on the suppression list is never mailed: the answer says so. An e-mail not sent gives back its
 * place in the address's re-send limit (docs/decisions/109).
 */
export async function mailInvitation(organizationName: string, invitation: IssuedInvitation): Promise<InvitationResult> {
  const { member, token, expiresAt } = invitation;
  const to = await mailableAddress(member.email);
  const sent = to
    ? await sendMail({ to, ...invitationEmail({ organizationName, name: member.name, role: member.role, baseUrl: publicBaseUrl(), token, expiresAt }) })
    : { delivered: false as const, error: suppressedMessage };
  if (!sent.delivered) await releaseInvitationMail(member.organizationId, member.email, invitation.mailedAt);
  return {
    emailDelivered: sent.delivered,
    ...(sent.delivered ? {} : { emailError: sent.error }),
    member: memberView(member),
  };
}
