import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflows } from '#wiring/workflows.ts';
import { projectRoot } from '../../lib/build/lambdaBundles.ts';

/**
 * The ASL files are the single source of every workflow: the CDK stack deploys them and the local
 * runner executes them. Each must be valid ASL, and its `${Task}` placeholders must be exactly the
 * task keys of the registry entry that names it (a placeholder without a task would deploy
 * unsubstituted; a task without a placeholder is a Lambda nothing calls).
 */
interface ValidationResult {
  isValid: boolean;
  errorsText: (separator?: string) => string;
}
// asl-validator is CommonJS without type declarations.
const aslValidator = createRequire(import.meta.url)('asl-validator') as (definition: unknown) => ValidationResult;

const directory = join(projectRoot, 'statemachines');
const files = readdirSync(directory).filter((name) => name.endsWith('.asl.json')).sort();
const registry = Object.values(workflows);

function placeholders(text: string): string[] {
  return [...new Set([...text.matchAll(/\$\{([^}]+)\}/g)].map((match) => match[1]!))].sort();
}

describe('state machine definitions', () => {
  it('exist, one per registry entry', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const workflow of registry) expect(files).toContain(workflow.definition.replace(/^statemachines\//, ''));
  });

  it.each(files)('%s is valid ASL', (file) => {
    // The validator annotates the object it is given; it gets a fresh parse.
    const result = aslValidator(JSON.parse(readFileSync(join(directory, file), 'utf8')));
    expect(result.errorsText('\n')).toBe('');
    expect(result.isValid).toBe(true);
  });

  it.each(files)('%s uses exactly the tasks of the workflow that names it', (file) => {
    const owners = registry.filter((workflow) => workflow.definition === `statemachines/${file}`);
    expect(owners.map((workflow) => workflow.name), `${file} must be named by exactly one workflow`).toHaveLength(1);
    const text = readFileSync(join(directory, file), 'utf8');
    expect(placeholders(text)).toEqual(Object.keys(owners[0]!.tasks).sort());
  });
});
