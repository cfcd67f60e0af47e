import { mayManage } from '#core/team.ts';
import { config } from '#platform/config.ts';
import { endpoint, ok } from '#platform/endpoint.ts';
import { ApiError, notFound } from '#platform/errors.ts';
import { resendInvitation } from '#wiring/routes.ts';
import { getMember, reissueInvitation } from '#store/members.ts';
import { mailInvitation } from './invitationMail.ts';

/**
 * POST /members/{memberId}/invitations: a fresh link; the old token is deleted in the same write,
 * so it is 400 `invalid_invite` from then on. Only for a member still invited: one who accepted
 * already has a key (409 `conflict`; docs/decisions/051).
 */
export const handler = endpoint(resendInvitation, async ({ caller, organization, params }) => {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const member = await getMember(caller.organizationId, params.memberId);
    if (!member) throw notFound('member');
    if (!mayManage(caller.role, member.role)) {
      throw new ApiError('forbidden', `The ${caller.role} role may only re-invite members whose role is below its own.`);
    }
    if (member.status !== 'invited') throw new ApiError('conflict', 'This member has already accepted the invitation; there is nothing to re-send.');
    const invitation = await reissueInvitation(member, config().INVITATION_TTL_SECONDS);
    if (invitation === 'stale') continue;
    return ok(await mailInvitation(organization.name, invitation));
  }
  throw new ApiError('unavailable', 'The invitation changed while it was being re-sent; retry.');
});
