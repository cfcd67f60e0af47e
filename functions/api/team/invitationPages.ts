import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { quoted } from '#domain/plainText.ts';
import type { ApiResponse } from '#platform/response.ts';
import { html, layout, messagePage, page } from '#platform/page.ts';
import type { InvitationItem, InvitationRefusal, Inviter, MemberItem } from '#store/members.ts';
import { getOrganization } from '#store/organizations.ts';

/**
 * The pages of the invitation link (GET and the form's POST of /invitations/accept; docs/decisions/112):
 * the invitation to accept, the key shown once, and one page per reason a link does not work, each
 * saying what to do. Names typed by others (the organization's, the inviter's) are quoted data (109).
 */

function inviterText(invitedBy: Inviter | undefined): string {
  if (!invitedBy) return "the organization's administrator (with the organization key)";
  return invitedBy.name === null ? invitedBy.email : `${quoted(invitedBy.name)} (${invitedBy.email})`;
}

async function organizationName(organizationId: string): Promise<string> {
  const organization = await getOrganization(organizationId);
  return organization ? quoted(organization.name) : 'the organization';
}

/** GET: what the link invites to, and one button; nothing is spent until it is pressed. */
export async function invitationAskPage(invitation: InvitationItem, member: MemberItem): Promise<ApiResponse> {
  const organization = await organizationName(invitation.organizationId);
  return page(layout({
    title: 'Join the team',
    main: html`<p>You are invited to join ${organization} as <strong>${member.role}</strong>.</p>
<dl>
<dt>Organization</dt><dd>${organization}</dd>
<dt>Role</dt><dd>${member.role}</dd>
<dt>Invited by</dt><dd>${inviterText(invitation.invitedBy)}</dd>
<dt>Invitation for</dt><dd>${member.email}</dd>
<dt>Link expires</dt><dd>${invitation.expiresAt}</dd>
</dl>
<p>Accepting creates your API key for this organization and shows it to you once, on the next page.</p>
<form method="post"><button type="submit">Accept the invitation</button></form>`,
  }));
}

/**
 * The one script of the kit's pages: the Copy button (hidden until the script shows it, so a page
 * without script shows only what works: a field to select and copy from) and the page's own origin
 * in the example. Its SHA-256 is in the page's CSP (functions/platform/page.ts).
 */
const copyScript = [
  'for (const button of document.querySelectorAll("button[data-copy]")) {',
  '  const field = document.getElementById(button.dataset.copy);',
  '  button.hidden = false;',
  '  button.addEventListener("click", () => {',
  '    field.select();',
  '    const copied = () => { button.textContent = "Copied"; };',
  '    if (navigator.clipboard) navigator.clipboard.writeText(field.value).then(copied, () => { document.execCommand("copy"); copied(); });',
  '    else { document.execCommand("copy"); copied(); }',
  '  });',
  '}',
  'for (const place of document.querySelectorAll("[data-origin]")) place.textContent = location.origin;',
].join('\n');

/**
 * The address the page was opened at, for the example: the Host header as the request came (the
 * script puts the browser's own `location.origin` in its place). No PUBLIC_BASE_URL is needed.
 */
function originOf(event: APIGatewayProxyEventV2): string {
  const host = event.headers?.host ?? event.requestContext?.domainName ?? 'localhost';
  const scheme = event.headers?.['x-forwarded-proto'] ?? (/^(127\.|localhost|\[::1\])/.test(host) ? 'http' : 'https');
  return `${scheme.split(',')[0]!.trim()}://${host}`;
}

/** After the button: the key, once, with what to do next. */
export async function invitationAcceptedPage(member: MemberItem, apiKey: string, event: APIGatewayProxyEventV2): Promise<ApiResponse> {
  const organization = await organizationName(member.organizationId);
  return page(layout({
    title: 'Invitation accepted',
    main: html`<p>You are now on the team of ${organization} as <strong>${member.role}</strong>.</p>
<label for="api-key">Your API key</label>
<input type="text" id="api-key" name="api-key" value="${apiKey}" readonly autocomplete="off" spellcheck="false">
<p><button type="button" data-copy="api-key" hidden>Copy the key</button></p>
<p><strong>This key will not be shown again.</strong> Copy it now into a password manager or your secrets store. Whoever holds it acts as you in ${organization}. If it is lost, an admin of the organization can remove you and invite you again.</p>
<h2>What next</h2>
<p>Send the key as a bearer token on every request. Check that it works:</p>
<pre><code>curl -H "Authorization: Bearer ${apiKey}" <span data-origin>${originOf(event)}</span>/me</code></pre>
<p>To replace the key later (if it may have leaked), call <code>POST /members/me/api-key</code> with it: the old one stops at once.</p>`,
    scripts: [copyScript],
  }));
}

/** Why the link does not work, and what to do: 410 for each (an unknown token too: nothing to find). */
export async function invitationGonePage(refusal: InvitationRefusal, invitation?: InvitationItem): Promise<ApiResponse> {
  const organization = invitation ? await organizationName(invitation.organizationId) : 'the organization that invited you';
  const ask = `ask an admin of ${organization} to invite you again`;
  const pages: Record<InvitationRefusal, { title: string; message: string[] }> = {
    used: {
      title: 'Invitation already accepted',
      message: [
        'This invitation was already accepted, and its API key was shown then, once. If that was you, keep using that key.',
        `If you lost the key, or it was not you who accepted, ${ask}: removing that member revokes its key at once.`,
      ],
    },
    expired: {
      title: 'Invitation expired',
      message: [`This invitation expired${invitation ? ` at ${invitation.expiresAt}` : ''}. To join, ${ask}: a re-sent invitation comes with a fresh link.`],
    },
    revoked: {
      title: 'Invitation withdrawn',
      message: [`This invitation was withdrawn by ${organization}. If you should still join, ask an admin of the organization for a new invitation.`],
    },
    replaced: {
      title: 'A newer invitation was sent',
      message: [
        'A newer invitation was sent to you, and it replaces this one: open the link in the newest invitation e-mail.',
        `If you cannot find it, ${ask}.`,
      ],
    },
    unknown: {
      title: 'Invitation link not valid',
      message: [
        'This link is not one we issued, or it was cut short (a link copied from an e-mail sometimes is). Open the link straight from the invitation e-mail.',
        'If it still does not work, ask an admin of the organization that invited you for a new invitation.',
      ],
    },
  };
  return page(messagePage(pages[refusal]), 410);
}
