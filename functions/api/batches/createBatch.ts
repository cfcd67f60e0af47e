import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createBatch } from '#contract/routes.ts';
import { acceptBatch } from '#operations/batch/intake.ts';
import { initiateTokens } from '#operations/batch/tokens.ts';

export const handler = endpoint(createBatch, async ({ caller, organization, body }) => {
  // One initiate token per item, charged once the batch is valid.
  const tokens = initiateTokens(organization);
  const accepted = await acceptBatch(caller.organizationId, body, tokens);
  return ok(accepted, 202, tokens.headers);
});
