/**
 * npm run lookalikes:generate: regenerates functions/domain/lookAlikes.ts from unhomoglyph's
 * confusables table (lib/build/lookAlikes.ts). Run it after upgrading unhomoglyph, and commit the result.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { lookAlikesFile, lookAlikesModule } from '../lib/build/lookAlikes.ts';
import { projectRoot } from '../lib/build/lambdaBundles.ts';

writeFileSync(lookAlikesFile, lookAlikesModule());
process.stdout.write(`wrote ${relative(projectRoot, lookAlikesFile)}\n`);
