import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleLambdas, type LambdaBundle } from '../../lib/build/lambdaBundles.ts';

/**
 * A bundle built as the CDK builds one, imported by a fresh Node process with no NODE_OPTIONS, as
 * Lambda runs it: its stack traces name the TypeScript, and the source map is read when the first
 * trace is formatted, not at import (docs/decisions/163). The child counts the files read through
 * node:fs (the module the bundle's mapper reads with) before and after the error.
 */
const fixture = 'test/fixtures/stackTraces/throwingHandler.ts';
let outRoot: string;
let bundle: LambdaBundle;

beforeAll(() => {
  outRoot = mkdtempSync(join(tmpdir(), 'stack-traces-'));
  [bundle] = bundleLambdas([fixture], { outRoot }) as [LambdaBundle];
});

afterAll(() => {
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
});

interface Thrown {
  stack: string;
  sourceMapsEnabled: boolean;
  readAtImport: string[];
  readAtTrace: string[];
}

async function throwIn(): Promise<Thrown> {
  const script = `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const read = [];
const readFileSync = fs.readFileSync;
fs.readFileSync = (path, ...rest) => (read.push(String(path)), readFileSync(path, ...rest));
syncBuiltinESMExports();
const { handler } = await import(${JSON.stringify(join(bundle.outdir, 'index.mjs'))});
const readAtImport = read.splice(0);
try {
  await handler();
} catch (error) {
  const stack = error.stack;
  process.stdout.write(JSON.stringify({ stack, sourceMapsEnabled: process.sourceMapsEnabled, readAtImport, readAtTrace: read }));
}`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: { PATH: process.env.PATH },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as Thrown;
}

describe('stack traces of a deployed bundle', () => {
  it('name the TypeScript functions and lines, with the map read at the first trace and not at import', async () => {
    const thrown = await throwIn();
    expect(thrown.sourceMapsEnabled).toBe(false);
    const [header, first, second] = thrown.stack.split('\n');
    expect(header).toBe('Error: refused: card declined');
    expect(first).toMatch(/^ {4}at refuse \(\/.*test\/fixtures\/stackTraces\/throwingHandler\.ts:7:9\)$/);
    // The outermost frame of the bundle keeps its minified name (no caller of ours names it), as Node's own mapping does.
    expect(second).toMatch(/^ {4}at \S+ \(\/.*test\/fixtures\/stackTraces\/throwingHandler\.ts:3:10\)$/);
    expect(thrown.readAtImport.filter((file) => file.endsWith('.map'))).toEqual([]);
    expect(thrown.readAtTrace).toEqual([join(bundle.outdir, 'index.mjs.map')]);
  });

  it('are left as V8 writes them when the map cannot be read, and the error still reaches its catcher', async () => {
    // The last test of the file: the bundle goes with the folder afterwards.
    rmSync(join(bundle.outdir, 'index.mjs.map'));
    const thrown = await throwIn();
    const [header, first] = thrown.stack.split('\n');
    expect(header).toBe('Error: refused: card declined');
    expect(first).toMatch(/^ {4}at \S+ \(file:\/\/\/.*index\.mjs:\d+:\d+\)$/);
  });
});
