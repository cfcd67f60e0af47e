import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { config } from '#platform/config.ts';
import { getOpenApi } from '#contract/routes.ts';
import { openApiDocument } from './openApiDocument.ts';

export const handler = endpoint(getOpenApi, async () => ok(await openApiDocument(config().SERVICE_VERSION), 200, { 'cache-control': 'public, max-age=300' }));
