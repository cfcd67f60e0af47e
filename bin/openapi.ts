/**
 * npm run openapi: prints the OpenAPI 3.1 document as JSON on stdout.
 * Options: --server-url <url> (the customer's base address), --version <version>.
 */
import { parseArgs } from 'node:util';
import { buildOpenApiDocument } from '#contract/openapi.ts';

const { values } = parseArgs({
  options: { 'server-url': { type: 'string' }, version: { type: 'string' } },
});

const document = buildOpenApiDocument({
  ...(values['server-url'] ? { serverUrl: values['server-url'] } : {}),
  ...(values.version ? { version: values.version } : {}),
});
process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
