import { config } from '#platform/config.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { acceptInvitation } from '#contract/routes.ts';
import { acceptInvitation as accept, memberView, type InvitationRefusal } from '#store/members.ts';
import { invitationAcceptedPage, invitationGonePage } from './invitationPages.ts';

/** The JSON API keeps the contract's one code; its message says which. */
const refusals: Record<InvitationRefusal, string> = {
  used: 'This invitation was already accepted.',
  expired: 'This invitation has expired.',
  revoked: 'This invitation was rescinded.',
  replaced: 'This invitation was replaced by a newer one: use the token of the newest e-mail.',
  unknown: 'This invitation token is not valid.',
};

/**
 * POST /invitations/accept (open: the token is the credential). Single use under any concurrency
 * (store/members.ts); the member's key is in this answer and nowhere else. As JSON (`{token}`) it is
 * the API; as the invitation page's form (`?token=…`, or a `token` field) it answers a page that
 * shows the key once, or why the link does not work.
 */
export const handler = endpoint(acceptInvitation, async ({ body, bodyAs, query, event }) => {
  if (bodyAs === 'form') {
    const token = query.token ?? body.token;
    if (!token) return invitationGonePage('unknown');
    const accepted = await accept(token, config().SERVICE_ENVIRONMENT);
    if ('refused' in accepted) return invitationGonePage(accepted.refused, accepted.invitation);
    return invitationAcceptedPage(accepted.member, accepted.apiKey, event);
  }
  const accepted = await accept(body.token, config().SERVICE_ENVIRONMENT);
  if ('refused' in accepted) throw new ApiError('invalid_invite', `${refusals[accepted.refused]} Ask an admin of the organization for a new invitation.`);
  return ok({ apiKey: accepted.apiKey, member: memberView(accepted.member) });
});
