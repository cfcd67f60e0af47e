import { endpoint, ok } from '#platform/endpoint.ts';
import { createOffRamp } from '#contract/routes.ts';
import { acceptOffRamp } from '#operations/offRamp/intake.ts';

export const handler = endpoint(createOffRamp, async ({ caller, body }) => ok(await acceptOffRamp(caller.organizationId, body), 202));
