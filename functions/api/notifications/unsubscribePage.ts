import { unsubscribePage } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { messagePage, page } from '#platform/page.ts';
import { unsubscribeTarget } from '#store/notifications.ts';

/**
 * GET /notifications/unsubscribe?token=… (open): a page with one button. A GET changes nothing, as
 * RFC 8058 asks, because link scanners and previews open links no person clicked.
 *
 * The button posts to `?token=…`, relative to the page itself: whatever address the page was opened
 * at (the stage's public address, a custom domain), the form goes back there. An absolute action
 * needed PUBLIC_BASE_URL, which only the functions that send mail are given: in AWS the form posted
 * to http://127.0.0.1:3000.
 */
export const handler = endpoint(unsubscribePage, async ({ query }) => {
  const target = await unsubscribeTarget(query.token);
  if (!target) return page(messagePage({ title: 'Link not valid', message: 'This unsubscribe link is not valid, or its member was removed.' }), 410);
  return page(messagePage({
    title: 'Stop these e-mails?',
    message: `${target.member.email} will no longer receive e-mails about ${target.claims.eventType}. Choose again at any time with PUT /notifications/preferences.`,
    form: { button: 'Unsubscribe', fields: { 'List-Unsubscribe': 'One-Click' } },
  }));
});
