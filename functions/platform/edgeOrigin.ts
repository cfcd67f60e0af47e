import { timingSafeEqual } from 'node:crypto';
import { config } from './config.ts';
import { ApiError } from './errors.ts';
import { stageSecret } from './stageSecret.ts';

/**
 * The edge's mark on a request (docs/decisions/104). On `sandbox` and `production` the API is reached
 * through CloudFront and AWS WAF; CloudFront adds this header, holding a secret of the stage's (Secrets
 * Manager), to every request it sends the HTTP API. A request without it came straight to the
 * `execute-api` address, around the WAF, and is refused before anything else is read.
 */
export const edgeOriginHeader = 'x-origin-verify';

/**
 * The values a request may carry: ORIGIN_SECRET (the local stack and the tests), else the secret at
 * ORIGIN_SECRET_ARN in its current and previous versions, so a rotation (docs/deployment.md) refuses
 * nothing while CloudFront takes the new value. Undefined where nothing is configured.
 */
async function acceptedValues(): Promise<Buffer[] | undefined> {
  const { ORIGIN_SECRET, ORIGIN_SECRET_ARN } = config();
  if (ORIGIN_SECRET) return [Buffer.from(ORIGIN_SECRET, 'utf8')];
  return ORIGIN_SECRET_ARN ? stageSecret(ORIGIN_SECRET_ARN, 'the origin secret') : undefined;
}

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
