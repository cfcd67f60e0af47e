// @aws-sdk/credential-provider-node for the Lambda bundles: the environment's credentials only
// (docs/decisions/158). Lambda hands every function its execution role's keys in AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, the first link of the SDK's default chain, so the
// rest of that chain (profiles, SSO and its token clients, web identity, process, container and
// instance metadata: about 130 KB) is never reached there, yet was parsed at every cold start.
// Without those variables a call fails with the SDK's own "Unable to find environment variable
// credentials", not after probing instance metadata.
import { fromEnv } from '@aws-sdk/credential-provider-env';

type ChainInit = Parameters<typeof fromEnv>[0];
type Credentials = Awaited<ReturnType<ReturnType<typeof fromEnv>>>;

export const defaultProvider = (init: ChainInit = {}) => fromEnv(init);
// The package's two other exports, unchanged: nothing in the bundles reads them today.
export const credentialsWillNeedRefresh = (credentials?: Credentials) => credentials?.expiration !== undefined;
export const credentialsTreatedAsExpired = (credentials?: Credentials) => credentials?.expiration !== undefined && credentials.expiration.getTime() - Date.now() < 300_000;
