import { ApiError } from '#platform/errors.ts';
import type { Caller } from '#store/access.ts';
import { changeMember, type MemberItem, type Stale } from '#store/members.ts';

/**
 * The notification endpoints are a member's own: the organization key (role owner, no member) gets
 * 409 `member_required`. The change runs on the member as read, again if it moved meanwhile.
 */
export function withCallingMember<T>(caller: Caller, act: (member: MemberItem) => Promise<T | Stale>): Promise<T> {
  if (!caller.memberId) {
    throw new ApiError('member_required', 'E-mail notifications are per member: call with a member key, not the organization key.');
  }
  return changeMember(caller.organizationId, caller.memberId, async (member) => {
    // The key authenticated a moment ago; a member no longer active has none.
    if (member.status !== 'active') throw new ApiError('unauthorized', 'This key was replaced or revoked.');
    return act(member);
  });
}
