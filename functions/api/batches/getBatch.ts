import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { getBatch } from '#contract/routes.ts';
import { batchDetail } from '#operations/batch/view.ts';

export const handler = endpoint(getBatch, async ({ caller, params, query }) => ok(await batchDetail(caller.organizationId, params.batchId, { limit: query.limit, cursor: query.cursor })));
