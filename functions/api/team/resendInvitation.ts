import { mayManage } from '#domain/team.ts';
import { config } from '#platform/config.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { resendInvitation } from '#contract/routes.ts';
import { changeMember, inviterOf, reissueInvitation } from '#store/members.ts';
import { mailInvitation } from '#operations/team/invitationMail.ts';
import { mailableAddress } from '#store/mailSuppressions.ts';

/**
 * POST /members/{memberId}/invitations: a fresh link, sent in the caller's name; the old token is
 * marked replaced in the same write, so it is 400 `invalid_invite` from then on (its page says a
 * newer invitation was sent). Only for a member still invited: one who accepted
 * already has a key (409 `conflict`; docs/decisions/051).
 */
export const handler = endpoint(resendInvitation, async ({ caller, organization, params }) =>
  changeMember(caller.organizationId, params.memberId, async (member) => {
    if (!mayManage(caller.role, member.role)) {
      throw new ApiError('forbidden', `The ${caller.role} role may only re-invite members whose role is below its own.`);
    }
    if (member.status !== 'invited') throw new ApiError('conflict', 'This member has already accepted the invitation; there is nothing to re-send.');
    // Read before the write: nothing after it may fail the request (mailInvitation).
    const to = await mailableAddress(member.email);
    const invitation = await reissueInvitation(member, config().INVITATION_TTL_SECONDS, await inviterOf(caller));
    return invitation === 'stale' ? invitation : ok(await mailInvitation(organization.name, invitation, to));
  }),
);
