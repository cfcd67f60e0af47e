import { verifyEmail } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { verificationPage } from './verificationPage.ts';

/** GET /notifications/verify?token=… (open: the token is the credential): the link in the verification e-mail. */
export const handler = endpoint(verifyEmail, async ({ query }) => verificationPage(query.token));
