import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { z } from 'zod';
import { ApiError, validationError, type ValidationIssue } from './errors.ts';

/**
 * Turning the raw API Gateway event into validated input. Every refusal is a 4xx with the
 * contract's body (docs/decisions/003-body-errors.md); nothing here can answer 500.
 */

/** Largest request body accepted (a 1000-item batch with full beneficiaries is about 600 KiB). */
export const maxBodyBytes = 1024 * 1024;

export function zodIssues(error: z.ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
    message: issue.message,
  }));
}

function validate<T extends z.ZodType>(schema: T, value: unknown, where: 'body' | 'query' | 'params'): z.infer<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = zodIssues(result.error);
  const message =
    where === 'body' ? 'The request body is not valid.' : where === 'query' ? 'The query is not valid.' : 'The path is not valid.';
  throw validationError(where === 'body' ? issues : issues.map((issue) => ({ ...issue, path: [where, ...issue.path] })), message);
}

function bodyBytes(event: APIGatewayProxyEventV2): Buffer {
  const raw = event.body;
  return raw === undefined || raw === null ? Buffer.alloc(0) : Buffer.from(raw, event.isBase64Encoded ? 'base64' : 'utf8');
}

/** The body as JSON: content type, size, encoding and syntax checked in that order. */
export function readJsonBody(event: APIGatewayProxyEventV2): unknown {
  const bytes = bodyBytes(event);
  if (bytes.length > maxBodyBytes) {
    throw new ApiError('payload_too_large', `The request body is larger than ${maxBodyBytes} bytes.`, { limitBytes: maxBodyBytes });
  }
  if (bytes.length === 0) throw new ApiError('bad_request', 'A JSON request body is required.');
  const contentType = (event.headers?.['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== 'application/json') {
    throw new ApiError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('bad_request', 'The request body is not valid UTF-8.');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
}

export function parseBody<T extends z.ZodType>(schema: T, event: APIGatewayProxyEventV2): z.infer<T> {
  return validate(schema, readJsonBody(event), 'body');
}

/**
 * A route that takes no body (POST /api-keys/rotate, …) accepts none or `{}`; any other body, unreadable
 * or not, is refused like a body of a route that has one, so nothing changes on a request the service
 * could not read (docs/decisions/074).
 */
export function parseNoBody(event: APIGatewayProxyEventV2): void {
  if (bodyBytes(event).length === 0) return;
  validate(z.strictObject({}), readJsonBody(event), 'body');
}

/** The query, validated; with `refuseUnknown`, a parameter the schema does not name is 400 `invalid_query` first. */
export function parseQuery<T extends z.ZodType>(schema: T, event: APIGatewayProxyEventV2, options: { refuseUnknown?: boolean } = {}): z.infer<T> {
  const query = event.queryStringParameters ?? {};
  if (options.refuseUnknown && schema instanceof z.ZodObject) {
    const known = Object.keys(schema.shape);
    const unknown = Object.keys(query).filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      throw new ApiError(
        'invalid_query',
        `Unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.slice(0, 5).map((name) => `\`${name.slice(0, 64)}\``).join(', ')}${unknown.length > 5 ? ', …' : ''}; this endpoint takes only ${known.map((name) => `\`${name}\``).join(', ')}.`,
      );
    }
  }
  return validate(schema, query, 'query');
}

export function parseParams<T extends z.ZodType>(schema: T, event: APIGatewayProxyEventV2): z.infer<T> {
  return validate(schema, event.pathParameters ?? {}, 'params');
}
