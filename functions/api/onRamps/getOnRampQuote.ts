import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { getOnRampQuote } from '#contract/routes.ts';
import { wireQuote } from '#operations/onRamp/pricing.ts';

/** GET /treasury/onramp/quote. The provider is asked for first so an environment without one answers 501, never a price for a deposit it cannot take. */
export const handler = endpoint(getOnRampQuote, async ({ query }) => {
  return ok(wireQuote(query.currency, query.amount));
});
