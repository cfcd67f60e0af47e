import { ApiError } from '#platform/errors.ts';
import type { Caller } from '#store/access.ts';
import { getMember, type MemberItem, type Stale } from '#store/members.ts';

/**
 * The notification endpoints are a member's own: the organization key (role owner, no member) gets
 * 409 `member_required`. The change runs on the member as read, again if it moved meanwhile (a
 * removed member's key is deleted with it, so one that vanished mid-request answers as a revoked key).
 */
export async function withCallingMember<T>(caller: Caller, act: (member: MemberItem) => Promise<T | Stale>): Promise<T> {
  if (!caller.memberId) {
    throw new ApiError('member_required', 'E-mail notifications are per member: call with a member key, not the organization key.');
  }
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const member = await getMember(caller.organizationId, caller.memberId);
    // The key authenticated a moment ago; a member removed since has no key any more.
    if (member?.status !== 'active') throw new ApiError('unauthorized', 'This key was replaced or revoked.');
    const result = await act(member);
    if (result !== 'stale') return result;
  }
  throw new ApiError('unavailable', 'Your member record changed while this request was changing it; retry.');
}
