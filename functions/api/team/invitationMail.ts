import { invitationEmail } from '#domain/team.ts';
import { publicBaseUrl } from '#platform/config.ts';
import { sendMail } from '#providers/mail.ts';
import { memberView, type IssuedInvitation } from '#store/members.ts';
import type { InvitationResult } from '#schemas/team.ts';

/**
 * E-mails an invitation through the mail port and shapes the answer of POST /members/invitations
 * and POST /members/{memberId}/invitations: `emailDelivered` is what the port said, and a failure
 * comes with `emailError` (the invitation stands; re-send it when the mail works again).
 */
export async function mailInvitation(organizationName: string, invitation: IssuedInvitation): Promise<InvitationResult> {
  const { member, token, expiresAt } = invitation;
  const message = invitationEmail({ organizationName, name: member.name, role: member.role, baseUrl: publicBaseUrl(), token, expiresAt });
  const sent = await sendMail({ to: member.email, ...message });
  return {
    emailDelivered: sent.delivered,
    ...(sent.delivered ? {} : { emailError: sent.error }),
    member: memberView(member),
  };
}
