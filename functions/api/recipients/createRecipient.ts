import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createRecipient } from '#contract/routes.ts';
import { createRecipient as saveRecipient } from '#store/recipients.ts';

export const handler = endpoint(createRecipient, async ({ caller, body }) => {
  return ok(await saveRecipient(caller.organizationId, body), 201);
});
