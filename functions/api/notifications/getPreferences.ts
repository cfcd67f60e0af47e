import { getNotificationPreferences } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { preferencesOf } from '#operations/notification/preferences.ts';
import { withCallingMember } from './callingMember.ts';

/** GET /notifications/preferences: the calling member's choices, verification and any suppression of its address. */
export const handler = endpoint(getNotificationPreferences, async ({ caller }) =>
  withCallingMember(caller, async (member) => ok(await preferencesOf(member))));
