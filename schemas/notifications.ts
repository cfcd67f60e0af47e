import * as z from 'zod/mini';
import { schema } from './schema.ts';
import { Timestamp } from './common.ts';
import { EventType } from './webhooks.ts';

export const NotificationPreferences = /* @__PURE__ */ schema(() => z
  .object({
    events: z.array(EventType).check(z.meta({ description: 'Events e-mailed to this member.' })),
    availableEvents: z.array(EventType),
    emailVerified: z.boolean().check(z.meta({ description: 'Nothing is e-mailed until the address is verified.' })),
    verificationAvailable: z.boolean(),
    updatedAt: Timestamp,
    email: z.optional(z.string()),
    suppressionReason: z.optional(z.string()),
    suppressedAt: z.optional(Timestamp),
  })
  .check(z.meta({ id: 'NotificationPreferences' })));
export type NotificationPreferences = z.infer<typeof NotificationPreferences>;

/** PUT /notifications/preferences: strict. The full wanted set; an empty list turns every e-mail off. */
export const PutNotificationPreferencesBody = /* @__PURE__ */ schema(() => z.strictObject({ events: z.array(EventType).check(z.maxLength(7)) }).check(
  z.meta({
    id: 'PutNotificationPreferencesRequest',
    description: 'Send the full wanted set; an empty list turns every e-mail off.',
  }),
));
export type PutNotificationPreferencesBody = z.infer<typeof PutNotificationPreferencesBody>;

export const VerificationSent = /* @__PURE__ */ schema(() => z
  .object({
    sent: z.boolean(),
    email: z.string().check(z.meta({ description: "The address on the caller's own member record." })),
    expiresAt: Timestamp,
    reason: z.optional(z.string()).check(
      z.meta({
        description:
          'Why `sent` is false: the mail transport failed, or the address is suppressed and no e-mail was attempted (our addition; docs/decisions/109).',
      }),
    ),
  })
  .check(z.meta({ id: 'VerificationSent' })));
export type VerificationSent = z.infer<typeof VerificationSent>;

/** The e-mailed links (verification, unsubscribe) carry their credential as `?token=`: the only input of those pages. */
export const NotificationLinkQuery = /* @__PURE__ */ schema(() => z.object({
  token: z.string().check(z.minLength(1), z.maxLength(512), z.meta({ description: 'The credential of the e-mailed link, exactly as it is in the link.' })),
}));
export type NotificationLinkQuery = z.infer<typeof NotificationLinkQuery>;

/** The verification page's form: nothing but the link's own token (in the query) is needed; other fields are ignored. */
export const VerifyEmailForm = /* @__PURE__ */ schema(() => z
  .object({})
  .check(z.meta({ id: 'VerifyEmailForm', description: 'Empty; the token is in the query, as in the link.' })));

/** RFC 8058 one-click unsubscribe: a mail client POSTs exactly this to the `List-Unsubscribe` link. */
export const UnsubscribeForm = /* @__PURE__ */ schema(() => z
  .object({ 'List-Unsubscribe': z.literal('One-Click') })
  .check(z.meta({ id: 'UnsubscribeForm', description: "RFC 8058: `List-Unsubscribe=One-Click`; the token is in the query, as in the header's link." })));
