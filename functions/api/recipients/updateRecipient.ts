import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { notFound, validationError } from '#platform/errors.ts';
import { updateRecipient } from '#contract/routes.ts';
import { updateRecipient as changeRecipient } from '#store/recipients.ts';

export const handler = endpoint(updateRecipient, async ({ caller, params, body }) => {
  const result = await changeRecipient(caller.organizationId, params.recipientId, body);
  if (result.outcome === 'not_found') throw notFound('recipient');
  if (result.outcome === 'incomplete') {
    throw validationError(
      [{ path: [result.field], message: `a ${result.type} recipient needs ${result.field === 'account' ? 'an account' : 'an address'}` }],
      `A ${result.type} recipient's ${result.field} cannot be cleared.`,
    );
  }
  return ok(result.recipient);
});
