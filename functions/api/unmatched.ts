import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routes } from '#contract/routes.ts';
import { ApiError } from '#platform/errors.ts';

/**
 * Requests that match no row of the route table (the HTTP API's `$default` route, and the
 * local adapter's fallback): 404 `not_found` for an unknown path, 405 with `Allow` for a
 * known path with another method. Same body shape as every other error.
 */
const patterns = routes.map((definition) => ({
  method: definition.method,
  regex: new RegExp(`^${definition.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const path = event.rawPath ?? event.requestContext?.http?.path ?? '/';
  const allowed = patterns.filter((pattern) => pattern.regex.test(path)).map((pattern) => pattern.method);
  const error = allowed.length
    ? new ApiError('method_not_allowed', `This path does not answer ${event.requestContext?.http?.method}.`, {}, { allow: [...new Set(allowed)].join(', ') })
    : new ApiError('not_found', 'No such endpoint; GET /openapi.json lists them all.');
  return {
    statusCode: error.status,
    headers: { 'content-type': 'application/json', 'x-request-id': event.requestContext?.requestId ?? randomUUID(), ...error.headers },
    body: JSON.stringify(error.body()),
  };
}
