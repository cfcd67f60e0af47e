import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { RouteDefinition } from '#contract/routes.ts';

/**
 * A function for the HTTP adapter's own tests (test/e2e/httpLimits.test.ts), behind the routes
 * below: it tells the size of the event it was handed, answers a result of the size asked, or takes
 * as long as asked, so the limits between a client and a function can be crossed to the byte.
 */
export const invocations: string[] = [];

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  invocations.push(event.rawPath);
  const query = event.queryStringParameters ?? {};
  if (event.rawPath === '/sized/echo') {
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ eventBytes: Buffer.byteLength(JSON.stringify(event)) }) };
  }
  if (event.rawPath === '/sized/answer') {
    // A result whose JSON is exactly `bytes` long.
    const empty = { statusCode: 200, headers: { 'content-type': 'text/plain' }, body: '' };
    return { ...empty, body: 'x'.repeat(Number(query.bytes) - Buffer.byteLength(JSON.stringify(empty))) };
  }
  await new Promise((resolve) => setTimeout(resolve, Number(query.ms)).unref());
  return { statusCode: 200, headers: { 'content-type': 'text/plain' }, body: 'late' };
}

const route = (operationId: string, method: 'GET' | 'POST', path: string): RouteDefinition => ({
  operationId,
  method,
  path,
  handler: 'test/support/sizedFunction.ts',
  auth: 'open',
  kyb: false,
  feature: 'discovery',
  summary: 'A test function of a known size or duration.',
  responses: {},
});

export const sizedRoutes: RouteDefinition[] = [route('sizedEcho', 'POST', '/sized/echo'), route('sizedAnswer', 'GET', '/sized/answer'), route('sizedSlow', 'GET', '/sized/slow')];
