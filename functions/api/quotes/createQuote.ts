import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createQuote } from '#contract/routes.ts';
import { lockQuote } from '#operations/quote/intake.ts';

/** POST /quotes: price a payment and lock the rate (functions/operations/quote/intake.ts). */
export const handler = endpoint(createQuote, async ({ caller, body }) => ok(await lockQuote(caller.organizationId, body)));
