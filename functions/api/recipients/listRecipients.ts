import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listRecipients } from '#contract/routes.ts';
import { listRecipients as readAll } from '#store/recipients.ts';

export const handler = endpoint(listRecipients, async ({ caller }) => {
  const recipients = await readAll(caller.organizationId);
  return ok({ recipients, count: recipients.length });
});
