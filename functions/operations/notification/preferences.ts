import { mailConfigured } from '#providers/mail.ts';
import { memberSuppression, preferencesView, setNotificationEvents } from '#store/notifications.ts';
import type { MemberItem, Stale } from '#store/members.ts';
import type { EventType } from '#schemas/webhooks.ts';

/** A member's notification choices as GET/PUT /notifications/preferences answer them: with its suppression and whether mail is wired here. */
export async function preferencesOf(member: MemberItem) {
  return preferencesView(member, await memberSuppression(member), mailConfigured());
}

/**
 * The full wanted set replaces the member's choice (an empty list turns every e-mail off). Choosing
 * is allowed before verifying; nothing is sent until verified. `stale` when the member moved meanwhile.
 */
export async function choosePreferences(member: MemberItem, events: readonly EventType[]): Promise<Awaited<ReturnType<typeof preferencesOf>> | Stale> {
  const changed = await setNotificationEvents(member, events);
  if (changed === 'stale') return changed;
  return preferencesOf(changed);
}
