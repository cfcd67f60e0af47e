import { mayGrant } from '#domain/team.ts';
import { config } from '#platform/config.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { inviteMember } from '#contract/routes.ts';
import { createInvitation, inviterOf } from '#store/members.ts';
import { mailInvitation } from '#operations/team/invitationMail.ts';
import { mailableAddress } from '#store/mailSuppressions.ts';

/**
 * POST /members/invitations: the member is created `invited` with a single-use token whose link is
 * e-mailed. Only a role below the caller's own may be granted (403 otherwise, `owner` never); an
 * address already on the team, in any case, is 409 `conflict`.
 */
export const handler = endpoint(inviteMember, async ({ caller, organization, body }) => {
  if (!mayGrant(caller.role, body.role)) {
    throw new ApiError('forbidden', `The ${caller.role} role may only grant a role below its own, and owner is never granted.`);
  }
  // Read before the write: nothing after it may fail the request (mailInvitation).
  const to = await mailableAddress(body.email);
  const invitation = await createInvitation({
    organizationId: caller.organizationId,
    email: body.email,
    name: body.name ?? null,
    role: body.role,
    ttlSeconds: config().INVITATION_TTL_SECONDS,
    invitedBy: await inviterOf(caller),
  });
  if (invitation === 'email_taken') throw new ApiError('conflict', 'That address is already on the team (as a member or a pending invitation).');
  return ok(await mailInvitation(organization.name, invitation, to), 201);
});
