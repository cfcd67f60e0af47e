import { describe, expect, it } from 'vitest';
import { redoclyLint } from '../support/redoclyLint.ts';
import { buildOpenApiDocument, tagGroups } from '#contract/openapi.ts';
import { operationDescriptions } from '#contract/descriptions.ts';
import { features } from '#contract/features.ts';
import { notImplementedHandler, routeKey, routes, takesNoBody, unbuiltRoutes } from '#contract/routes.ts';

const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: { in: string; name: string }[];
  requestBody?: unknown;
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
}
interface Document {
  openapi: string;
  info: { version: string };
  servers: { url: string }[];
  paths: Record<string, Partial<Record<(typeof methods)[number], Operation>>>;
  components: { responses: Record<string, { headers?: Record<string, unknown> }> };
}

const document = buildOpenApiDocument() as Document;

const operations = Object.entries(document.paths).flatMap(([pathName, item]) =>
  methods.flatMap((method) => (item[method] ? [{ key: `${method.toUpperCase()} ${pathName}`, operation: item[method]! }] : [])),
);
const byKey = new Map(operations.map(({ key, operation }) => [key, operation]));

/** A response as written, or the shared component it points to. */
function resolved(operation: Operation, status: string) {
  const response = operation.responses[status];
  const ref = response?.$ref;
  return ref ? document.components.responses[ref.replace('#/components/responses/', '')] : response;
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1.x', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
  });

  it('has exactly one operation per route row', () => {
    const rowKeys = routes.map(routeKey);
    expect(new Set(rowKeys).size).toBe(rowKeys.length);
    expect(operations.map(({ key }) => key).sort()).toEqual([...rowKeys].sort());
    for (const definition of routes) {
      expect(byKey.get(routeKey(definition))?.operationId).toBe(definition.operationId);
    }
  });

  it('lists as unbuilt exactly the rows the not-implemented handler answers (its bundle holds only those)', () => {
    const unbuilt = routes.filter((definition) => definition.handler === notImplementedHandler).map(routeKey);
    expect(unbuiltRoutes.map(routeKey).sort()).toEqual(unbuilt.sort());
  });

  it('documents 401 and 429 (with Retry-After and rate-limit headers) on every keyed operation', () => {
    for (const definition of routes.filter((row) => row.auth === 'key')) {
      const operation = byKey.get(routeKey(definition))!;
      expect(operation.security, definition.operationId).toEqual([{ bearerAuth: [] }]);
      expect(resolved(operation, '401'), definition.operationId).toBeDefined();
      const limited = resolved(operation, '429');
      expect(Object.keys(limited?.headers ?? {}).sort(), definition.operationId).toEqual(
        ['Retry-After', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].sort(),
      );
    }
  });

  it('asks no credential on the open operations', () => {
    for (const definition of routes.filter((row) => row.auth === 'open')) {
      expect(byKey.get(routeKey(definition))?.security, definition.operationId).toEqual([]);
    }
  });

  it('declares every path parameter and every request body of the route table', () => {
    for (const definition of routes) {
      const operation = byKey.get(routeKey(definition))!;
      const pathParameters = [...definition.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name);
      expect(declared.sort(), definition.operationId).toEqual(pathParameters.sort());
      expect(operation.requestBody !== undefined, definition.operationId).toBe(definition.request?.body !== undefined || definition.request?.form !== undefined || takesNoBody(definition));
      // A form (the e-mailed links' pages) is documented as the form it is, not as JSON.
      if (definition.request?.form) {
        expect(Object.keys((operation.requestBody as { content: object }).content), definition.operationId)
          .toEqual([...(definition.request.body ? ['application/json'] : []), 'application/x-www-form-urlencoded']);
      }
      // A row that takes no body documents the one it accepts ({}) as optional, and its 400 for any other.
      if (takesNoBody(definition)) expect(operation.requestBody, definition.operationId).toMatchObject({ required: false });
      if (definition.request?.body || definition.request?.query || takesNoBody(definition)) expect(operation.responses['400'], definition.operationId).toBeDefined();
      if (definition.feature !== 'discovery') expect(operation.responses['501'], definition.operationId).toBeDefined();
      expect(operation.responses['500'], definition.operationId).toBeDefined();
    }
  });

  it('has only ECMA-262 patterns a JSON Schema validator compiles, with no JavaScript /…/flags form', () => {
    const patterns: { at: string; pattern: string }[] = [];
    const visit = (node: unknown, at: string): void => {
      if (Array.isArray(node)) return node.forEach((item, index) => visit(item, `${at}/${index}`));
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        // `pattern` as a keyword (a string), not a property named "pattern" inside `properties`.
        if (key === 'pattern' && typeof value === 'string') patterns.push({ at, pattern: value });
        else visit(value, `${at}/${key}`);
      }
    };
    visit(document, '');
    expect(patterns.length).toBeGreaterThan(0);
    for (const { at, pattern } of patterns) {
      expect(() => new RegExp(pattern, 'u'), at).not.toThrow();
      // A regex literal's source with its flags (`…$/i`) would demand a literal slash and letter.
      expect(pattern, at).not.toMatch(/\/[dgimsuvy]+$/);
      expect(pattern, at).not.toMatch(/^\/.*\/[a-z]*$/);
    }
  });

  it('describes every operation in words of its own, beyond its summary (the reference page shows them)', () => {
    expect(Object.keys(operationDescriptions).sort()).toEqual(routes.map((definition) => definition.operationId).sort());
    for (const { key, operation } of operations) {
      expect(operation.summary, key).toBeTruthy();
      expect(operation.description?.length ?? 0, key).toBeGreaterThan(40);
      expect(operation.description, key).not.toBe(operation.summary);
    }
  });

  it('puts every tag in exactly one group of the menu (Redoc hides a tag in none)', () => {
    const grouped = tagGroups.flatMap((group) => group.tags);
    expect([...grouped].sort()).toEqual(Object.keys(features).sort());
    expect(new Set(grouped).size).toBe(grouped.length);
  });

  it('takes the server address and version from its options', () => {
    const custom = buildOpenApiDocument({ serverUrl: 'https://acme.payments.test', version: '9.9.9' }) as Document;
    expect(custom.servers).toEqual([{ url: 'https://acme.payments.test' }]);
    expect(custom.info.version).toBe('9.9.9');
  });

  it('passes redocly lint with no errors', async () => {
    const report = await redoclyLint(document);
    expect(report.problems.filter((problem) => problem.severity === 'error')).toEqual([]);
    expect(report.totals.errors).toBe(0);
  }, 60_000);
});
