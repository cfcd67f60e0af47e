import { getNotificationPreferences } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { mailConfigured } from '#providers/mail.ts';
import { memberSuppression, preferencesView } from '#store/notifications.ts';
import { withCallingMember } from './callingMember.ts';

/** GET /notifications/preferences: the calling member's choices, verification and any suppression of its address. */
export const handler = endpoint(getNotificationPreferences, async ({ caller }) =>
  withCallingMember(caller, async (member) => ok(preferencesView(member, await memberSuppression(member), mailConfigured()))));
