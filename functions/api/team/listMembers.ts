import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listMembers } from '#contract/routes.ts';
import { listMembers as readMembers, memberView } from '#store/members.ts';

/** GET /members: the whole team (a bounded set), oldest first. */
export const handler = endpoint(listMembers, async ({ caller }) => {
  const members = (await readMembers(caller.organizationId)).map((member) => memberView(member));
  return ok({ members, count: members.length });
});
