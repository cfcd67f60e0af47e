import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { getMe } from '#contract/routes.ts';
import { getMember } from '#store/members.ts';

export const handler = endpoint(getMe, async ({ caller }) => {
  const identity = { id: caller.organizationId, name: caller.organizationName, role: caller.role };
  if (!caller.memberId) return ok(identity);
  const member = await getMember(caller.organizationId, caller.memberId);
  return ok({
    ...identity,
    memberId: caller.memberId,
    actor: { name: member?.name ?? null, email: member?.email ?? '' },
  });
});
