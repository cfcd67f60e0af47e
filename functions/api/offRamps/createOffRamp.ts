import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { createOffRamp } from '#contract/routes.ts';
import { acceptOffRamp } from '#operations/offRamp/intake.ts';

export const handler = endpoint(createOffRamp, async ({ caller, body }) => ok(await acceptOffRamp(caller.organizationId, body), 202));
