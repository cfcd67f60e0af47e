import { putNotificationPreferences } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { mailConfigured } from '#providers/mail.ts';
import { memberSuppression, preferencesView, setNotificationEvents } from '#store/notifications.ts';
import { withCallingMember } from './callingMember.ts';

/**
 * PUT /notifications/preferences: the full wanted set replaces the member's choice (an empty list
 * turns every e-mail off). Choosing is allowed before verifying; nothing is sent until verified.
 */
export const handler = endpoint(putNotificationPreferences, async ({ caller, body }) =>
  withCallingMember(caller, async (member) => {
    const changed = await setNotificationEvents(member, body.events);
    if (changed === 'stale') return changed;
    return ok(preferencesView(changed, await memberSuppression(changed), mailConfigured()));
  }));
