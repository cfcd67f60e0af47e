import { endpoint, ok } from '#platform/endpoint.ts';
import { listRecipients } from '#contract/routes.ts';
import { listRecipients as readAll } from '#store/recipients.ts';

export const handler = endpoint(listRecipients, async ({ caller }) => {
  const recipients = await readAll(caller.organizationId);
  return ok({ recipients, count: recipients.length });
});
