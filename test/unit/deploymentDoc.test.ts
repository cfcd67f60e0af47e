import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../lib/build/lambdaBundles.ts';

/**
 * docs/deployment.md is a walk that works as written: every command in it that needs no AWS
 * account is marked `# checked by .ci/run` and run by .ci/run exactly as written (for each stage).
 */
const marker = '# checked by .ci/run';
const doc = readFileSync(join(projectRoot, 'docs', 'deployment.md'), 'utf8');
const ci = readFileSync(join(projectRoot, '.ci', 'run'), 'utf8');
const commands = (text: string) => text.split('\n').filter((line) => line.trimEnd().endsWith(marker)).map((line) => line.trim());

describe('docs/deployment.md', () => {
  it('has its offline commands run by .ci/run exactly as written, and .ci/run runs nothing else as the doc', () => {
    expect(commands(doc).length).toBeGreaterThan(0);
    expect(commands(ci).sort()).toEqual(commands(doc).sort());
  });

  it('synthesizes every stage in .ci/run, with the variables the doc sets', () => {
    expect(ci).toMatch(/for STAGE in simulated sandbox production; do/);
    for (const variable of ['ACCOUNT', 'REGION', 'SENDER']) {
      expect(doc, variable).toMatch(new RegExp(`\\b${variable}=\\S+`));
      expect(ci, variable).toMatch(new RegExp(`\\b${variable}=\\S+`));
    }
  });
});
