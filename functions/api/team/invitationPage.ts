import { invitationPage } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { findInvitation } from '#store/members.ts';
import { invitationAskPage, invitationGonePage } from './invitationPages.ts';

/**
 * GET /invitations/accept?token=… (open): the e-mailed link. It shows what the invitation is (the
 * organization, the role, who invited) and one Accept button; a GET spends nothing, because link
 * scanners and previews open links no person clicked. The button's form has no `action`: it posts
 * back to this very address (`?token=…`), wherever the service is served from (unsubscribePage.ts).
 */
export const handler = endpoint(invitationPage, async ({ query }) => {
  const found = await findInvitation(query.token);
  if (found.outcome !== 'open') return invitationGonePage(found.outcome, found.invitation);
  return invitationAskPage(found.invitation, found.member);
});
