/**
 * npm run client:generate: regenerates the typed client's types from the OpenAPI document
 * (lib/build/clientTypes.ts). Run it after changing a route or a schema, and commit the result.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { clientTypes, clientTypesFile } from '../lib/build/clientTypes.ts';
import { projectRoot } from '../lib/build/lambdaBundles.ts';

writeFileSync(clientTypesFile, await clientTypes());
process.stdout.write(`wrote ${relative(projectRoot, clientTypesFile)}\n`);
