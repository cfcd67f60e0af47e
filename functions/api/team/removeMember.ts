import { mayManage } from '#domain/team.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { removeMember } from '#contract/routes.ts';
import { changeMember, memberView, removeMember as remove } from '#store/members.ts';

/**
 * DELETE /members/{memberId}: an invitation is rescinded (its link stops working), an active
 * member's key is revoked in the same write (401 on its next request). The address can be invited
 * again afterwards. The answer shows the member as it was, with status `removed`.
 */
export const handler = endpoint(removeMember, async ({ caller, params }) =>
  changeMember(caller.organizationId, params.memberId, async (member) => {
    if (!mayManage(caller.role, member.role)) {
      throw new ApiError('forbidden', `The ${caller.role} role may only remove members whose role is below its own.`);
    }
    if ((await remove(member)) === 'stale') return 'stale';
    return ok({ member: memberView(member, 'removed'), rescinded: member.status === 'invited' });
  }),
);
