import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync, type Metafile } from 'esbuild';
import { entryName, lambdaEntries } from '../aws/handlers.ts';
import { getOpenApi, getReferenceScript } from '#contract/routes.ts';
import { buildOpenApiDocument } from '#contract/openapi.ts';
import { referenceScriptFiles, writeReferenceScript } from '../../functions/api/discovery/referenceScript.ts';
import { openApiDocumentFile } from '../../functions/api/discovery/openApiDocument.ts';

/**
 * Every Lambda bundle from one esbuild service in this process (docs/decisions/010): NodejsFunction
 * would start one bundler process per function. Each entry is one build of its own, split at its
 * dynamic imports (docs/decisions/161): what a function imports at first use is a file beside its
 * `index.mjs`, loaded when first asked for, not parsed at every cold start.
 *
 * Each entry gets a directory of its own (`<outRoot>/<name>/index.mjs` and its chunks), so
 * `Code.fromAsset(outdir)` packages exactly one handler and an unchanged handler keeps its asset hash.
 */
export const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

export const defaultBundleRoot = join(projectRoot, 'cdk.out', '.bundles');

/**
 * The simulated stage's wiring of the provider simulators (docs/decisions/121): injected into every
 * bundle of the `simulated` flavor, in none of the other. Sandbox and production deploy ports and
 * real adapters only.
 */
export const simulatorsWiring = 'functions/simulators/install.ts';
const simulatorsFolder = 'functions/simulators/';

/**
 * What a Lambda bundle may weigh (issue 28; docs/decisions/126): the larger a bundle, the longer its cold
 * start parses. Issue 28 asked for 770 KB each and 600 KB at the median; since the look-alike table and
 * the credential chain left (docs/decisions/157, 158: 519 KB and 395 KB) the budgets hold that gain with
 * some room: deployed bundles at most 600 KB each, 450 KB at the median; the simulated stage's carry the
 * provider simulators on top. cdk.test fails when one grows past these, and the bench reads them.
 */
export const bundleBudgets: Record<BundleFlavor, { maxBytes: number; medianBytes: number }> = {
  deployed: { maxBytes: 600_000, medianBytes: 450_000 },
  simulated: { maxBytes: 700_000, medianBytes: 550_000 },
};

/**
 * Injected into every bundle before the handler's code: stack traces name the TypeScript, the map
 * read when a trace is first formatted rather than at every cold start (docs/decisions/163). No
 * function sets NODE_OPTIONS=--enable-source-maps.
 */
const stackTraceSourcesModule = join(projectRoot, 'lib', 'build', 'stackTraceSources.ts');

/** Which bundles: `simulated` for the simulated stage, `deployed` (no simulator) for sandbox and production. */
export type BundleFlavor = 'simulated' | 'deployed';

export function bundleFlavorOf(environment: string): BundleFlavor {
  return environment === 'simulated' ? 'simulated' : 'deployed';
}

export interface LambdaBundle {
  /** The handler module, relative to the project root (as the wiring tables name it). */
  entry: string;
  /** Directory name and construct id, e.g. `api-discovery-getHealth`. */
  name: string;
  /** Absolute directory holding `index.mjs`, the chunks it imports at first use and their source maps: the function's asset. */
  outdir: string;
  /** Size of all the asset's minified JavaScript (`index.mjs` and every chunk), in bytes. */
  bytes: number;
  /** Of those, what a cold start loads: `index.mjs` and the chunks it imports statically. */
  importBytes: number;
}

/** Every JavaScript file of a bundle's asset, `index.mjs` first. */
export function bundleFiles(bundle: Pick<LambdaBundle, 'outdir'>): string[] {
  const chunks = readdirSync(bundle.outdir).filter((file) => file.endsWith('.mjs') && file !== 'index.mjs').sort();
  return ['index.mjs', ...chunks].map((file) => join(bundle.outdir, file));
}

/** All the code of a bundle's asset, for tests that look for what it must or must not carry. */
export function bundleCode(bundle: Pick<LambdaBundle, 'outdir'>): string {
  return bundleFiles(bundle).map((file) => readFileSync(file, 'utf8')).join('\n');
}

/**
 * Beside the stamp: for each bundle, the files a cold start loads (index.mjs and the chunks it imports
 * statically), read from esbuild's metafile at build time, so a reused build answers `importBytes` too.
 */
const loadedAtImportFile = '.loaded-at-import.json';

/**
 * Files a handler serves as they are, written beside its `index.mjs` rather than bundled into it: the
 * reference page's script (1.1 MB, with its brotli and gzip forms; docs/decisions/114) would otherwise
 * make its handler's JS bundle too large to load fast, and it is bytes to send, not code to run. The
 * OpenAPI document, generated here once, spares GET /openapi.json's cold start every schema and the
 * generator (docs/decisions/129).
 */
const filesBeside: Record<string, { names: string[]; write: (directory: string) => void }> = {
  [getReferenceScript.handler]: { names: Object.values(referenceScriptFiles), write: writeReferenceScript },
  [getOpenApi.handler]: {
    names: [openApiDocumentFile],
    write: (directory) => writeFileSync(join(directory, openApiDocumentFile), JSON.stringify(buildOpenApiDocument())),
  },
};

export interface BundleOptions {
  /** Where the per-entry directories go (default `cdk.out/.bundles/<flavor>`); emptied first so no stale bundle is deployed. */
  outRoot?: string;
  /** Default `deployed`: what sandbox and production run. */
  flavor?: BundleFlavor;
}

/**
 * Defines `require` for the CommonJS dependencies that esbuild leaves as `require(...)` calls
 * inside an ES module (Node built-ins reached from CJS code, e.g. in the AWS SDK's dependencies).
 */
const requireBanner = "import { createRequire as __bundleCreateRequire } from 'node:module'; const require = __bundleCreateRequire(import.meta.url);";

export function bundleLambdas(entries: string[] = lambdaEntries(), options: BundleOptions = {}): LambdaBundle[] {
  const flavor = options.flavor ?? 'deployed';
  const outRoot = resolve(options.outRoot ?? join(defaultBundleRoot, flavor));
  const distinct = [...new Set(entries)];

  // Fail with the whole list at once: esbuild would stop at the first unresolved entry.
  const missing = distinct.filter((entry) => !existsSync(join(projectRoot, entry)));
  if (missing.length > 0) {
    throw new Error(`Lambda handler modules not found (named in functions/contract): ${missing.join(', ')}`);
  }

  const names = new Map<string, string>();
  for (const entry of distinct) {
    const name = entryName(entry);
    const clash = names.get(name);
    if (clash) throw new Error(`Lambda handler modules ${clash} and ${entry} would share the bundle name ${name}`);
    names.set(name, entry);
  }

  const stampFile = join(outRoot, '.inputs-sha256');
  const stamp = inputsDigest(distinct, flavor);
  const fresh = existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp && existsSync(join(outRoot, loadedAtImportFile))
    && [...names].every(([name, entry]) => [...(filesBeside[entry]?.names ?? []), 'index.mjs'].every((file) => existsSync(join(outRoot, name, file))));
  if (!fresh) build(outRoot, names, flavor);
  writeFileSync(stampFile, stamp);

  const loadedAtImport: Record<string, string[]> = JSON.parse(readFileSync(join(outRoot, loadedAtImportFile), 'utf8'));
  return [...names].map(([name, entry]) => {
    const outdir = join(outRoot, name);
    const size = (file: string) => statSync(file).size;
    const bytes = bundleFiles({ outdir }).reduce((sum, file) => sum + size(file), 0);
    const importBytes = loadedAtImport[name]!.reduce((sum, file) => sum + size(join(outdir, file)), 0);
    return { entry, name, outdir, bytes, importBytes };
  });
}

/**
 * What the bundles are made of: every source file the handlers can import (functions/, schemas/,
 * functions/contract/), the locked dependency tree, this builder and the entry list. Unchanged, the bundles
 * of the previous build are reused (docs/decisions/081): `cdk synth` of three stages, or a synth
 * then a deploy, bundle once.
 */
function inputsDigest(entries: string[], flavor: BundleFlavor): string {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ entries, flavor }));
  const files = ['functions', 'schemas', join('lib', 'wiring')].flatMap((directory) => filesUnder(join(projectRoot, directory)));
  for (const file of [...files, join(projectRoot, 'package-lock.json'), fileURLToPath(import.meta.url), nodeHttpModule, lambdaCredentialsModule, stackTraceSourcesModule].sort()) {
    hash.update(relative(projectRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory, { withFileTypes: true }).flatMap((item) => {
    const path = join(directory, item.name);
    return item.isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * @middy/core imports `node:stream/web` and `node:stream/promises` at its top for streamed responses,
 * which no function of ours answers; loading web streams cost every API function about 5 ms of its
 * cold import (issue 28, docs/decisions/148). The bundles take a copy of middy's one module that reads
 * them at first use instead: the global ReadableStream (the same class, which Node loads when it is
 * first touched) when a response is tested against it, and a pipeline imported when a stream is
 * piped. (esbuild's synchronous API takes no plugin, so the copy is written beside the other caches
 * and aliased.) A middy whose imports read otherwise fails the build, so that an upgrade is looked at.
 */
const middyEagerStreams = 'import { pipeline } from "node:stream/promises";\nimport { ReadableStream } from "node:stream/web";\n';
const middyLazyStreams =
  'const pipeline = (...streams) => import("node:stream/promises").then((streamPromises) => streamPromises.pipeline(...streams));\n' +
  // Only `instanceof ReadableStream` reads it: the global is touched then, not when the bundle loads.
  'const ReadableStream = { [Symbol.hasInstance]: (value) => value instanceof globalThis.ReadableStream };\n';

function middyWithStreamsAtFirstUse(): string {
  const original = join(projectRoot, 'node_modules', '@middy', 'core', 'index.js');
  const source = readFileSync(original, 'utf8');
  if (!source.includes(middyEagerStreams)) {
    throw new Error(`${original} no longer imports web streams as lib/build/lambdaBundles.ts expects: update middyWithStreamsAtFirstUse (docs/decisions/148)`);
  }
  const copy = join(projectRoot, 'node_modules', '.cache', 'middy-core-streams-at-first-use', 'index.js');
  mkdirSync(dirname(copy), { recursive: true });
  writeFileSync(copy, source.replace(middyEagerStreams, middyLazyStreams));
  return copy;
}

/**
 * `node:http` (and `http`) imported in a bundle resolve to lib/build/nodeHttp.cjs, Node's module object
 * itself: an ES import of a built-in builds its facade by reading every export, and http's lazy
 * WebSocket getters then load undici at every cold start (docs/decisions/156).
 */
const nodeHttpModule = join(projectRoot, 'lib', 'build', 'nodeHttp.cjs');
const nodeHttpWithoutFacade = { 'node:http': nodeHttpModule, http: nodeHttpModule };

/**
 * The SDK's default credential chain resolves, in the bundles, to the environment's credentials only,
 * which is where Lambda puts the execution role's (lib/build/lambdaCredentials.ts, docs/decisions/158).
 */
const lambdaCredentialsModule = join(projectRoot, 'lib', 'build', 'lambdaCredentials.ts');
const credentialsFromEnvironment = { '@aws-sdk/credential-provider-node': lambdaCredentialsModule };

function build(outRoot: string, names: Map<string, string>, flavor: BundleFlavor): void {
  rmSync(outRoot, { recursive: true, force: true });
  const alias = { '@middy/core': middyWithStreamsAtFirstUse(), ...nodeHttpWithoutFacade, ...credentialsFromEnvironment };
  const loadedAtImport: Record<string, string[]> = {};
  for (const [name, entry] of names) {
    const outdir = join(outRoot, name);
    const { metafile } = buildSync({
      absWorkingDir: projectRoot,
      entryPoints: { index: join(projectRoot, entry) },
      outdir,
      outExtension: { '.js': '.mjs' },
      bundle: true,
      // A module imported at first use (`await import(...)`: a client for Secrets Manager, KMS, SES or
      // Step Functions, the SDK's browser and event-stream code) becomes a chunk beside index.mjs. One
      // build per entry, so no chunk is shared between two functions' assets (docs/decisions/161).
      splitting: true,
      chunkNames: '[name]-[hash]',
      platform: 'node',
      target: 'node22',
      format: 'esm',
      banner: { js: requireBanner },
      // ESM builds of dependencies first: they tree-shake, CJS builds do not.
      mainFields: ['module', 'main'],
      // The AWS SDK is bundled, not taken from the runtime: the runtime's copy changes under us
      // between deploys, a bundled one is the version the tests ran against.
      external: [],
      minify: true,
      treeShaking: true,
      // Stack traces map back to the TypeScript through these maps, read at the first trace formatted
      // (stackTraceSources); without embedded sources the maps stay small and no source ships in the asset.
      sourcemap: true,
      sourcesContent: false,
      // Licence texts go to a file beside the bundle rather than into the code that is loaded.
      legalComments: 'external',
      logLevel: 'error',
      // Run before the handler's own code: traces mapped from the first, and (simulated) every port finds its simulator registered.
      inject: [stackTraceSourcesModule, ...(flavor === 'simulated' ? [join(projectRoot, simulatorsWiring)] : [])],
      alias,
      metafile: true,
    });
    const inputs = Object.keys(metafile.inputs);
    // A simulator reached by any other way than the wiring (an import from a port or a handler) would
    // ship to production: stop here rather than deploy a bank that pretends.
    const leaked = flavor === 'deployed' ? inputs.filter((input) => input.startsWith(simulatorsFolder)) : [];
    if (leaked.length > 0) throw new Error(`The ${flavor} bundles must hold no simulator; ${entry} imports ${leaked.join(', ')}`);
    // The schemas are zod/mini (docs/decisions/160): classic zod in a bundle costs every cold start of
    // that function about 25 ms. openapi.ts and its twins run here, at build time, and are never bundled.
    const classicZod = inputs.filter((input) => input.includes('node_modules/zod/v4/classic/'));
    if (classicZod.length > 0) throw new Error(`The Lambda bundles must not carry classic zod (import 'zod/mini'); ${entry} imports ${classicZod.join(', ')}`);
    // esbuild writes a chunk for every module the graph imports at first use, also where the `import()`
    // itself was shaken out (GET /batches reaches the workflow port's Step Functions client through a
    // function it never calls; no bundle calls the SDK's browser user-agent parser). Only what index.mjs
    // reaches, statically or at first use, stays in the asset.
    const reached = filesReached(outdir, metafile.outputs, () => true);
    for (const file of Object.keys(metafile.outputs).map((path) => resolve(projectRoot, path))) {
      if (file.endsWith('.mjs') && !reached.has(file)) for (const written of [file, `${file}.map`, `${file}.LEGAL.txt`]) rmSync(written, { force: true });
    }
    loadedAtImport[name] = [...filesReached(outdir, metafile.outputs, (kind) => kind === 'import-statement')].map((file) => relative(outdir, file));
    filesBeside[entry]?.write(outdir);
  }
  writeFileSync(join(outRoot, loadedAtImportFile), JSON.stringify(loadedAtImport));
}

/** The output files index.mjs reaches through the imports `follow` accepts (by esbuild's kind: `import-statement`, `dynamic-import`). */
function filesReached(outdir: string, outputs: Metafile['outputs'], follow: (kind: string) => boolean): Set<string> {
  const absolute = (path: string) => resolve(projectRoot, path);
  const importsOf = new Map(Object.entries(outputs).map(([path, output]) => [absolute(path), output.imports.filter((item) => !item.external && follow(item.kind)).map((item) => absolute(item.path))]));
  const reached = new Set<string>();
  const visit = (file: string) => {
    if (reached.has(file)) return;
    reached.add(file);
    for (const imported of importsOf.get(file) ?? []) visit(imported);
  };
  visit(join(outdir, 'index.mjs'));
  return reached;
}
