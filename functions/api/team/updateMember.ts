import { mayGrant, mayManage } from '#domain/team.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { updateMember } from '#contract/routes.ts';
import { changeMember, changeMemberRole, memberView } from '#store/members.ts';

/**
 * PATCH /members/{memberId}: only a member whose role is below the caller's own, and only to a
 * role below it. An active member's key carries the new role from the next request on.
 */
export const handler = endpoint(updateMember, async ({ caller, params, body }) =>
  changeMember(caller.organizationId, params.memberId, async (member) => {
    if (!mayManage(caller.role, member.role)) {
      throw new ApiError('forbidden', `The ${caller.role} role may only change members whose role is below its own.`);
    }
    if (!mayGrant(caller.role, body.role)) {
      throw new ApiError('forbidden', `The ${caller.role} role may only grant a role below its own, and owner is never granted.`);
    }
    if (member.role === body.role) return ok({ member: memberView(member) });
    const changed = await changeMemberRole(member, body.role);
    return changed === 'stale' ? changed : ok({ member: memberView(changed) });
  }),
);
