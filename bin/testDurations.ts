import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Rewrites test/fileDurations.json from vitest's cache of the last run (node_modules/.vite/vitest),
 * which test/support/sequencer.ts reads to start the longest files first on a fresh clone. Run it
 * after a full `npm test` on a two-core machine when files were added or grew.
 */
const root = path.resolve(import.meta.dirname, '..');
const cacheRoot = path.join(root, 'node_modules', '.vite', 'vitest');
const results: [string, { duration?: number }][] = readdirSync(cacheRoot).flatMap((folder) => {
  try {
    return JSON.parse(readFileSync(path.join(cacheRoot, folder, 'results.json'), 'utf8')).results;
  } catch {
    return [];
  }
});
const seconds = Object.fromEntries(
  results
    .map(([key, { duration = 0 }]) => [key.replace(/^[^:]*:/, ''), Math.round(duration / 100) / 10] as const)
    .sort((a, b) => b[1] - a[1]),
);
writeFileSync(path.join(root, 'test', 'fileDurations.json'), `${JSON.stringify(seconds, null, 1)}\n`);
console.log(`${Object.keys(seconds).length} files, ${Object.values(seconds).reduce((sum, s) => sum + s, 0).toFixed(0)} s in all`);
