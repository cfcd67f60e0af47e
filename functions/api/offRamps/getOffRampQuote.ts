import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { getOffRampQuote } from '#contract/routes.ts';
import { quoteOffRamp } from '#operations/offRamp/intake.ts';

export const handler = endpoint(getOffRampQuote, async ({ caller, query }) => ok(await quoteOffRamp(caller.organizationId, query)));
