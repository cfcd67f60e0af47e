import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { listBatches } from '#contract/routes.ts';
import { batchList } from '#operations/batch/view.ts';

export const handler = endpoint(listBatches, async ({ caller, query }) => ok(await batchList(caller.organizationId, { limit: query.limit, cursor: query.cursor })));
