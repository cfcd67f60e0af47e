import { sendEmailVerification } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { sendVerification } from '#operations/notification/verification.ts';
import { withCallingMember } from './callingMember.ts';

/** POST /notifications/verify/send: a link to the caller's own address (functions/operations/notification/verification.ts). */
export const handler = endpoint(sendEmailVerification, async ({ caller }) =>
  withCallingMember(caller, async (member) => {
    const sent = await sendVerification(member, caller.organizationName);
    return sent === 'stale' ? sent : ok(sent, 202);
  }));
