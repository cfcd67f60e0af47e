import { putNotificationPreferences } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { choosePreferences } from '#operations/notification/preferences.ts';
import { withCallingMember } from './callingMember.ts';

/** PUT /notifications/preferences: the full wanted set replaces the member's choice (functions/operations/notification/preferences.ts). */
export const handler = endpoint(putNotificationPreferences, async ({ caller, body }) =>
  withCallingMember(caller, async (member) => {
    const chosen = await choosePreferences(member, body.events);
    return chosen === 'stale' ? chosen : ok(chosen);
  }));
