import type { ApiResponse } from '#platform/response.ts';
import { messagePage, page } from '#platform/page.ts';
import { confirmVerification } from '#store/notifications.ts';

/**
 * The verification link, opened (GET) or posted as a form (POST): both verify, since whoever reaches
 * the link read the mailbox it was sent to, and both answer a page saying so or why not (410).
 */
export async function verificationPage(token: string): Promise<ApiResponse> {
  const result = await confirmVerification(token);
  switch (result.outcome) {
    case 'verified':
      return page(messagePage({ title: 'Address verified', message: `${result.email} is verified: the e-mail notifications you choose will be sent to it.` }));
    case 'already_verified':
      return page(messagePage({ title: 'Address verified', message: `${result.email} is already verified with this link.` }));
    case 'expired':
      return page(messagePage({ title: 'Link expired', message: 'This verification link has expired. Ask for a new one with POST /notifications/verify/send.' }), 410);
    case 'invalid':
      return page(messagePage({ title: 'Link not valid', message: 'This verification link is not valid: it was replaced by a newer one, already used, or its member was removed. Ask for a new one with POST /notifications/verify/send.' }), 410);
  }
}
