import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import * as z from 'zod/mini';
// The class itself, not `z.core.$ZodObject`: reading `core` off the namespace would bundle all of it.
import { $ZodObject } from 'zod/v4/core';
import { ApiError, validationError, type ValidationIssue } from './errors.ts';

/**
 * Turning the raw API Gateway event into validated input. Every refusal is a 4xx with the
 * contract's body (docs/decisions/003-body-errors.md); nothing here can answer 500.
 */

/** Largest request body accepted (a 1000-item batch with full beneficiaries is about 600 KiB). */
export const maxBodyBytes = 1024 * 1024;

export function zodIssues(error: z.core.$ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((part) => (typeof part === 'number' ? part : String(part))),
    message: issue.message,
  }));
}

function validate<T extends z.core.$ZodType>(schema: T, value: unknown, where: 'body' | 'query' | 'params'): z.infer<T> {
  const result = z.safeParse(schema, value);
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

function tooLarge(bytes: Buffer): void {
  if (bytes.length > maxBodyBytes) {
    throw new ApiError('payload_too_large', `The request body is larger than ${maxBodyBytes} bytes.`, { limitBytes: maxBodyBytes });
  }
}

function contentTypeOf(event: APIGatewayProxyEventV2): string {
  return (event.headers?.['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
}

function utf8(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError('bad_request', 'The request body is not valid UTF-8.');
  }
}

/** The body as JSON: content type, size, encoding and syntax checked in that order. */
export function readJsonBody(event: APIGatewayProxyEventV2): unknown {
  const bytes = bodyBytes(event);
  tooLarge(bytes);
  if (bytes.length === 0) throw new ApiError('bad_request', 'A JSON request body is required.');
  if (contentTypeOf(event) !== 'application/json') {
    throw new ApiError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  const text = utf8(bytes);
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError('invalid_json', 'The request body is not valid JSON.');
  }
}

export function parseBody<T extends z.core.$ZodType>(schema: T, event: APIGatewayProxyEventV2): z.infer<T> {
  return validate(schema, readJsonBody(event), 'body');
}

/** The request is a form as a browser posts it (the rows that take a form beside JSON tell them apart by this). */
export function isFormPost(event: APIGatewayProxyEventV2): boolean {
  return contentTypeOf(event) === 'application/x-www-form-urlencoded';
}

/**
 * A form as a browser or a mail client posts it (`application/x-www-form-urlencoded`), on the few
 * routes that take one (a row's `request.form`; docs/decisions/094). An empty body is an empty form,
 * as a form with no fields is sent. A repeated field keeps its first value.
 */
export function parseForm<T extends z.core.$ZodType>(schema: T, event: APIGatewayProxyEventV2): z.infer<T> {
  const bytes = bodyBytes(event);
  tooLarge(bytes);
  const fields: Record<string, string> = {};
  if (bytes.length > 0) {
    if (contentTypeOf(event) !== 'application/x-www-form-urlencoded') {
      throw new ApiError('unsupported_media_type', 'Send the form with Content-Type: application/x-www-form-urlencoded.');
    }
    for (const [name, value] of new URLSearchParams(utf8(bytes))) if (!(name in fields)) fields[name] = value;
  }
  return validate(schema, fields, 'body');
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
export function parseQuery<T extends z.core.$ZodType>(schema: T, event: APIGatewayProxyEventV2, options: { refuseUnknown?: boolean } = {}): z.infer<T> {
  const query = event.queryStringParameters ?? {};
  if (options.refuseUnknown && schema instanceof $ZodObject) {
    const known = Object.keys(schema._zod.def.shape);
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

export function parseParams<T extends z.core.$ZodType>(schema: T, event: APIGatewayProxyEventV2): z.infer<T> {
  return validate(schema, event.pathParameters ?? {}, 'params');
}
