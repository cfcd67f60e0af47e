import { mayGrant, mayManage } from '#core/team.ts';
import { endpoint, ok } from '#platform/endpoint.ts';
import { ApiError, notFound } from '#platform/errors.ts';
import { updateMember } from '#wiring/routes.ts';
import { changeMemberRole, getMember, memberView } from '#store/members.ts';

/**
 * PATCH /members/{memberId}: only a member whose role is below the caller's own, and only to a
 * role below it. An active member's key carries the new role from the next request on.
 */
export const handler = endpoint(updateMember, async ({ caller, params, body }) => {
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const member = await getMember(caller.organizationId, params.memberId);
    if (!member) throw notFound('member');
    if (!mayManage(caller.role, member.role)) {
      throw new ApiError('forbidden', `The ${caller.role} role may only change members whose role is below its own.`);
    }
    if (!mayGrant(caller.role, body.role)) {
      throw new ApiError('forbidden', `The ${caller.role} role may only grant a role below its own, and owner is never granted.`);
    }
    if (member.role === body.role) return ok({ member: memberView(member) });
    const changed = await changeMemberRole(member, body.role);
    if (changed === 'stale') continue;
    return ok({ member: memberView(changed) });
  }
  throw new ApiError('unavailable', 'The member changed while its role was being changed; retry.');
});
