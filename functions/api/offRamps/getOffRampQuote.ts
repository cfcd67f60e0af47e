import { endpoint, ok } from '#platform/endpoint.ts';
import { getOffRampQuote } from '#contract/routes.ts';
import { quoteOffRamp } from '#operations/offRamp/intake.ts';

export const handler = endpoint(getOffRampQuote, async ({ caller, query }) => ok(await quoteOffRamp(caller.organizationId, query)));
