import { unsubscribe as unsubscribeRow } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { messagePage, page } from '#platform/page.ts';
import { unsubscribe } from '#store/notifications.ts';

/**
 * POST /notifications/unsubscribe?token=… with `List-Unsubscribe=One-Click` (RFC 8058; open: the
 * signed token names the member and the event type): that event type leaves the member's choices.
 */
export const handler = endpoint(unsubscribeRow, async ({ query }) => {
  const result = await unsubscribe(query.token);
  if (result.outcome === 'invalid') return page(messagePage({ title: 'Link not valid', message: 'This unsubscribe link is not valid, or its member was removed.' }), 410);
  return page(messagePage({ title: 'Unsubscribed', message: `${result.email} will no longer receive e-mails about ${result.claims.eventType}.` }));
});
