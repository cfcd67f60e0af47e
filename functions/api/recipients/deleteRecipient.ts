import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound } from '#platform/errors.ts';
import { deleteRecipient } from '#contract/routes.ts';
import { deleteRecipient as removeRecipient } from '#store/recipients.ts';

export const handler = endpoint(deleteRecipient, async ({ caller, params }) => {
  const deleted = await removeRecipient(caller.organizationId, params.recipientId);
  if (!deleted) throw notFound('recipient');
  return ok(deleted);
});
