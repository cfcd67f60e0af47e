import { config } from '#platform/config.ts';
import { endpoint, ok } from '#platform/endpoint.ts';
import { ApiError } from '#platform/errors.ts';
import { acceptInvitation } from '#contract/routes.ts';
import { acceptInvitation as accept, memberView } from '#store/members.ts';

/**
 * POST /invitations/accept (open: the token is the credential). Single use under any concurrency
 * (store/members.ts); the member's key is in this answer and nowhere else.
 */
export const handler = endpoint(acceptInvitation, async ({ body }) => {
  const accepted = await accept(body.token, config().SERVICE_ENVIRONMENT);
  if (!accepted) {
    throw new ApiError('invalid_invite', 'This invitation is not valid: it was used, replaced, rescinded or has expired. Ask for a new one.');
  }
  return ok({ apiKey: accepted.apiKey, member: memberView(accepted.member) });
});
