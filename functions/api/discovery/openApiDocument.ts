import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/**
 * The OpenAPI document GET /openapi.json serves. Generating it takes the whole route table, every
 * schema and the generator: a Lambda's cold import would build all of them. So the Lambda bundler
 * writes it beside the handler's `index.mjs` at build time (lib/build/lambdaBundles.ts), and the
 * handler reads that file; run locally (no bundle), it is generated on the first request, once
 * (docs/decisions/129). Either way the running service's version is the document's.
 */
export const openApiDocumentFile = 'openapi.json';

// A specifier the bundler does not follow: the bundle holds no generator, which it never runs.
const generatorModule: string = '#contract/openapi.ts';

let loaded: Promise<object> | undefined;

export function openApiDocument(version: string): Promise<object> {
  loaded ??= (async () => {
    const beside = fileURLToPath(new URL(openApiDocumentFile, import.meta.url));
    if (existsSync(beside)) {
      const built = JSON.parse(await readFile(beside, 'utf8')) as { info: object };
      return { ...built, info: { ...built.info, version } };
    }
    const { buildOpenApiDocument } = (await import(generatorModule)) as typeof import('#contract/openapi.ts');
    return buildOpenApiDocument({ version });
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}
