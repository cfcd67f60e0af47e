import { config } from '#platform/config.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { rotateMemberKey } from '#contract/routes.ts';
import { changeMember, memberView, rotateMemberKey as rotate } from '#store/members.ts';

/**
 * POST /members/me/api-key: the calling member's key is replaced by a new one with the same role,
 * in one write; the old key is 401 on the very next request, and the unsubscribe links of e-mails
 * sent before stop working (a new version of the member's unsubscribe key, decision 110). The
 * organization key has no member: 409 `member_required`.
 */
export const handler = endpoint(rotateMemberKey, async ({ caller }) => {
  if (!caller.memberId) {
    throw new ApiError('member_required', 'This needs a member key; the organization key is rotated with POST /api-keys/rotate.');
  }
  return changeMember(caller.organizationId, caller.memberId, async (member) => {
    // The key authenticated a moment ago but is no longer the member's: rotated or revoked meanwhile.
    if (member.status !== 'active' || member.keyId !== caller.keyId) throw new ApiError('unauthorized', 'This key was replaced or revoked.');
    const rotated = await rotate(member, caller.keyId, config().SERVICE_ENVIRONMENT);
    if (rotated === 'stale') return rotated;
    return ok({ apiKey: rotated.apiKey, member: memberView(rotated.member), rotatedAt: rotated.member.updatedAt });
  });
});
