import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { idempotencyKeyFields, listItemFields } from '@payments/client';
import { buildOpenApiDocument } from '#contract/openapi.ts';
import { clientTypes, clientTypesFile, regenerateCommand } from '../../lib/build/clientTypes.ts';
import { projectRoot } from '../../lib/build/lambdaBundles.ts';

/**
 * The typed client follows the document: its committed types are what openapi-typescript makes of
 * the document now, and its tables of money-moving calls and cursor lists name every such route.
 */
interface Schema {
  $ref?: string;
  required?: string[];
  properties?: Record<string, Schema>;
}
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
const document = buildOpenApiDocument() as { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
const resolved = (schema: Schema | undefined): Schema | undefined =>
  schema?.$ref ? document.components.schemas[schema.$ref.replace('#/components/schemas/', '')] : schema;

describe('the typed client', () => {
  it('has types generated from the document as it is now', async () => {
    const committed = readFileSync(clientTypesFile, 'utf8');
    const fresh = await clientTypes();
    // One line, not a 7,000-line diff: the fix is to regenerate, whatever changed.
    expect(committed === fresh, `${relative(projectRoot, clientTypesFile)} is stale: the OpenAPI document changed. Run \`${regenerateCommand}\` and commit the result.`).toBe(true);
  }, 60_000);

  it('makes an idempotency key for every call whose body requires one, in the field that carries it', () => {
    const keyed = Object.entries(document.paths).flatMap(([path, item]) => {
      const body = resolved(item.post?.requestBody?.content?.['application/json']?.schema);
      const field = ['idempotencyKey', 'batchId'].find((name) => body?.required?.includes(name));
      return field ? [[path, field]] : [];
    });
    expect(Object.fromEntries(keyed)).toEqual(idempotencyKeyFields);
  });

  it('walks every list that answers nextCursor', () => {
    const lists = Object.entries(document.paths).flatMap(([path, item]) => {
      const body = resolved(item.get?.responses?.['200']?.content?.['application/json']?.schema);
      return body?.properties?.nextCursor ? [path] : [];
    });
    expect(lists.sort()).toEqual(Object.keys(listItemFields).sort());
  });
});
