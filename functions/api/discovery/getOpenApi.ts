import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { config } from '#platform/config.ts';
import { getOpenApi } from '#contract/routes.ts';
import { buildOpenApiDocument } from '#contract/openapi.ts';

let document: object | undefined;

export const handler = endpoint(getOpenApi, async () => {
  document ??= buildOpenApiDocument({ version: config().SERVICE_VERSION });
  return ok(document, 200, { 'cache-control': 'public, max-age=300' });
});
