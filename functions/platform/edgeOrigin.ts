import { timingSafeEqual } from 'node:crypto';
import { config } from './config.ts';
import { ApiError } from './errors.ts';

/**
 * The edge's mark on a request (docs/decisions/104). On `sandbox` and `production` the API is reached
 * through CloudFront and AWS WAF; CloudFront adds this header, holding a secret of the stage's (Secrets
 * Manager), to every request it sends the HTTP API. A request without it came straight to the
 * `execute-api` address, around the WAF, and is refused before anything else is read.
 */
export const edgeOriginHeader = 'x-origin-verify';

/** How long a function keeps the values it read: a rotated secret is accepted everywhere within this. */
const refreshMs = 5 * 60 * 1000;

let loaded: { values: Buffer[]; at: number } | undefined;
let loading: Promise<Buffer[]> | undefined;

/**
 * The values a request may carry: ORIGIN_SECRET (the local stack and the tests), else the secret at
 * ORIGIN_SECRET_ARN in its current and previous versions, so a rotation (docs/deployment.md) refuses
 * nothing while CloudFront takes the new value. Undefined where nothing is configured.
 */
async function acceptedValues(): Promise<Buffer[] | undefined> {
  const { ORIGIN_SECRET, ORIGIN_SECRET_ARN } = config();
  if (ORIGIN_SECRET) return [Buffer.from(ORIGIN_SECRET, 'utf8')];
  if (!ORIGIN_SECRET_ARN) return undefined;
  if (loaded && Date.now() - loaded.at < refreshMs) return loaded.values;
  loading ??= readSecret(ORIGIN_SECRET_ARN)
    .then((values) => {
      loaded = { values, at: Date.now() };
      return values;
    })
    .finally(() => (loading = undefined));
  return loading;
}

async function readSecret(secretId: string): Promise<Buffer[]> {
  const { SecretsManagerClient, GetSecretValueCommand, ResourceNotFoundException } = await import('./secretsManager.ts');
  client ??= new SecretsManagerClient({});
  const read = async (VersionStage: string) => {
    try {
      return (await client!.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage }))).SecretString;
    } catch (error) {
      // A secret never rotated has no previous version.
      if (error instanceof ResourceNotFoundException && VersionStage === 'AWSPREVIOUS') return undefined;
      throw error;
    }
  };
  const values = (await Promise.all([read('AWSCURRENT'), read('AWSPREVIOUS')])).filter((value): value is string => Boolean(value));
  if (values.length === 0) throw new Error('the origin secret is empty');
  return values.map((value) => Buffer.from(value, 'utf8'));
}

let client: import('@aws-sdk/client-secrets-manager').SecretsManagerClient | undefined;

function refused(): ApiError {
  return new ApiError('forbidden', "This address does not serve the API: send requests to the stage's public address.");
}

/**
 * Refuses, as 403 `forbidden`, a request that did not come through the edge. `simulated` has no edge
 * (its stage is the bare HTTP API). A function in Lambda on another stage that was given no secret
 * refuses everything rather than serve around the WAF; the local stack without ORIGIN_SECRET checks
 * nothing, as it has no edge to come through (docs/deployment.md, where the twin differs).
 */
export async function requireEdgeOrigin(headers: Record<string, string | undefined> | undefined): Promise<void> {
  const { SERVICE_ENVIRONMENT, AWS_LAMBDA_FUNCTION_NAME } = config();
  if (SERVICE_ENVIRONMENT === 'simulated') return;
  const accepted = await acceptedValues();
  if (!accepted) {
    if (AWS_LAMBDA_FUNCTION_NAME) throw refused();
    return;
  }
  const presented = Buffer.from(headers?.[edgeOriginHeader] ?? '', 'utf8');
  // Every accepted value is compared, in constant time for its length, whatever matched before.
  let matched = false;
  for (const value of accepted) matched = (value.length === presented.length && timingSafeEqual(value, presented)) || matched;
  if (!matched) throw refused();
}
