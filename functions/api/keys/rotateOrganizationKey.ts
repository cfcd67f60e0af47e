import { config } from '#platform/config.ts';
import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { ApiError } from '#platform/errors.ts';
import { rotateOrganizationKey } from '#contract/routes.ts';
import { rotateOrganizationKey as rotate } from '#store/organizations.ts';

/**
 * POST /api-keys/rotate (owner only, the organization key): a new organization key; the calling
 * key is deleted in the same transaction, so it is 401 on the very next request.
 */
export const handler = endpoint(rotateOrganizationKey, async ({ caller }) => {
  const now = new Date();
  const issued = await rotate(caller.organizationId, { keyId: caller.keyId, hash: caller.keyHash }, config().SERVICE_ENVIRONMENT, now);
  if (!issued) throw new ApiError('unauthorized', 'This key was replaced or revoked.');
  return ok({ apiKey: issued.apiKey, rotatedAt: now.toISOString() });
});
