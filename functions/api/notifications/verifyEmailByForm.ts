import { verifyEmailByForm } from '#contract/routes.ts';
import { endpoint } from '#api/endpoint.ts';
import { verificationPage } from './verificationPage.ts';

/** POST /notifications/verify?token=… (a form, open: the token is the credential): the same verification as the link. */
export const handler = endpoint(verifyEmailByForm, async ({ query }) => verificationPage(query.token));
