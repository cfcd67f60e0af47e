import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { getPixOnRampQuote } from '#contract/routes.ts';
import { quotePix } from '#operations/onRamp/pixQuote.ts';

/** GET /treasury/onramp/pix/quote: what a code for this amount would deliver now, and whether one can be opened. */
export const handler = endpoint(getPixOnRampQuote, async ({ caller, query }) => {
  return ok(await quotePix(caller.organizationId, query.amount));
});
