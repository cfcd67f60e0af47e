import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Every answer an end-to-end test reads is held against the OpenAPI document the service serves
 * (GET /openapi.json, not the zod schemas it is generated from), as a client generated from that
 * document would read it: the operation is found by method and path template, the status must be
 * one the operation declares, and the body must match that response's schema under a JSON Schema
 * 2020-12 validator. A mismatch fails the test that made the request. An answer in another media
 * type than JSON (a statement as CSV) must be one the response declares, and its text is held
 * against that media type's schema (a string).
 *
 * Deliberately outside the document, and checked against its `Error` schema instead:
 * - 404 `not_found` / 405 `method_not_allowed` of a path or method no operation has (the
 *   unmatched route, docs/decisions/012);
 * - 431 of a request line or headers past node's limit (the local adapter answers it before any
 *   handler; in AWS, API Gateway does; docs/decisions/003).
 */
const base = 'https://served.openapi.test/document.json';

interface Response {
  $ref?: string;
  content?: Record<string, { schema?: object }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, { responses: Record<string, Response> }>>;
  webhooks?: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, object>; responses?: Record<string, Response> };
}

interface Template {
  path: string;
  regex: RegExp;
  literals: number;
}

export interface ServedDocument {
  /** Undefined when the answer fits the document; else what a client would reject, in words. */
  /** `mediaType`: the answer's content type without parameters; JSON unless said. */
  mismatch(method: string, path: string, status: number, body: unknown, mediaType?: string): string | undefined;
  /**
   * Every example the document carries (request bodies, answers, webhook payloads), each held against
   * the schema of the media type it sits in: `mismatches` lists those that do not fit, in words.
   */
  examples(): { checked: string[]; mismatches: string[] };
}

interface MediaType {
  schema?: object;
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface OperationObject {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, Response & { content?: Record<string, MediaType> }>;
}

/** `#/components/...` inside a schema points into the document, which the validator holds under `base`. */
function anchored(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(anchored);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema).map(([key, value]) => [key, key === '$ref' && typeof value === 'string' && value.startsWith('#') ? `${base}${value}` : anchored(value)]),
  );
}

function describe(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .slice(0, 8)
    .map((error) => `${error.instancePath || '(body)'} ${error.message}${error.params ? ` ${JSON.stringify(error.params)}` : ''}`)
    .join('; ');
}

export function servedDocument(document: OpenApiDocument): ServedDocument {
  // strictSchema off: the document's own keywords (`example`, and `components` around the schemas) are
  // not JSON Schema; every format the document names must still be known (ajv throws on an unknown one).
  const ajv = new Ajv2020({ allErrors: true, strictSchema: false });
  addFormats(ajv);
  ajv.addSchema({ $id: base, components: { schemas: document.components.schemas } });
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (key: string, schema: object): ValidateFunction => {
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(anchored(schema) as object);
      compiled.set(key, validate);
    }
    return validate;
  };

  const templates: Template[] = Object.keys(document.paths)
    .map((path) => {
      const segments = path.split('/').filter(Boolean);
      const pattern = segments.map((segment) => (/^\{.+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
      return { path, regex: new RegExp(`^/${pattern}$`), literals: segments.filter((segment) => !segment.startsWith('{')).length };
    })
    // The most specific template first, as the router prefers a literal segment to a parameter.
    .sort((a, b) => b.literals - a.literals);

  const errorBody = (key: string, body: unknown) => {
    const validate = validatorOf(key, { $ref: '#/components/schemas/Error' });
    return validate(body) ? undefined : `${key}: ${describe(validate.errors)}`;
  };

  return {
    examples() {
      const checked: string[] = [];
      const mismatches: string[] = [];
      const hold = (where: string, media: MediaType) => {
        const values = [...(media.example === undefined ? [] : [['example', media.example] as const]), ...Object.entries(media.examples ?? {}).map(([name, example]) => [name, example.value] as const)];
        for (const [name, value] of values) {
          const at = `${where} (${name})`;
          checked.push(at);
          if (!media.schema) {
            mismatches.push(`${at}: no schema to hold it against`);
            continue;
          }
          const validate = validatorOf(`example ${at}`, media.schema);
          if (!validate(value)) mismatches.push(`${at}: ${describe(validate.errors)}`);
        }
      };
      const operations = [
        ...Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => [`${method.toUpperCase()} ${path}`, operation as OperationObject] as const)),
        ...Object.entries(document.webhooks ?? {}).flatMap(([name, item]) => Object.entries(item).map(([method, operation]) => [`webhook ${name} ${method.toUpperCase()}`, operation] as const)),
      ];
      for (const [where, operation] of operations) {
        for (const [mediaType, media] of Object.entries(operation.requestBody?.content ?? {})) hold(`${where} request ${mediaType}`, media);
        for (const [status, written] of Object.entries(operation.responses ?? {})) {
          const response = (written.$ref ? document.components.responses?.[written.$ref.split('/').pop()!] : written) as { content?: Record<string, MediaType> } | undefined;
          for (const [mediaType, media] of Object.entries(response?.content ?? {})) hold(`${where} ${status} ${mediaType}`, media);
        }
      }
      return { checked, mismatches };
    },
    mismatch(method, rawPath, status, body, mediaType = 'application/json') {
      const path = rawPath.split('?')[0]!;
      const verb = method.toLowerCase();
      const template = templates.find((candidate) => candidate.regex.test(path) && document.paths[candidate.path]![verb]);
      if (status === 431) return errorBody('431 (outside the document)', body);
      if (!template) {
        const known = templates.some((candidate) => candidate.regex.test(path));
        if ((known && status === 405) || (!known && status === 404)) return errorBody(`${status} of an unmatched route`, body);
        return `${method} ${path} has no operation in the document, and answered ${status}`;
      }
      const operation = document.paths[template.path]![verb]!;
      let response = operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default;
      const where = `${method} ${template.path} ${status}`;
      if (!response) return `${where}: status not declared (declared: ${Object.keys(operation.responses).join(', ')})`;
      if (response.$ref) response = document.components.responses?.[response.$ref.split('/').pop()!];
      if (response?.content && mediaType !== 'application/json' && !response.content[mediaType]) {
        return `${where}: answered ${mediaType}, declared only ${Object.keys(response.content).join(', ')}`;
      }
      const schema = response?.content?.[mediaType]?.schema;
      if (!schema) return undefined;
      const validate = validatorOf(mediaType === 'application/json' ? where : `${where} ${mediaType}`, schema);
      return validate(body) ? undefined : `${where}: ${describe(validate.errors)}`;
    },
  };
}
