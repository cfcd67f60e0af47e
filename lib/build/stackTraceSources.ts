import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Injected into every Lambda bundle (lib/build/lambdaBundles.ts): a stack trace names the TypeScript
 * line, read from the map esbuild writes beside each bundle file, and the map is read only when a
 * stack is first formatted. Node's `--enable-source-maps` reads and decodes the map of every file it
 * loads, at load: 5–20 ms of every cold start for traces most invocations never print
 * (docs/decisions/163). The frames read as Node's own mapped frames do, so Powertools' `location`
 * and the runtime's error log parse them alike. Anything unmapped (Node's own frames, a file without
 * a map, a map that cannot be read) is left as V8 wrote it; formatting never throws.
 */
const maps = new Map<string, SourceMap | undefined>();
/** This module is inlined into the bundle's index.mjs: its directory holds the bundle's files and their maps. */
const bundleDirectory = new URL('.', import.meta.url).href;

/** The map of one of the bundle's files, by its file URL; read once, at the first trace through it. */
function mapOf(fileUrl: string): SourceMap | undefined {
  if (maps.has(fileUrl)) return maps.get(fileUrl);
  let map: SourceMap | undefined;
  // Only the bundle's own files: the runtime's and Node's have no map to read.
  if (fileUrl.startsWith(bundleDirectory) && !fileUrl.slice(bundleDirectory.length).includes('/')) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(fileUrl)}.map`, 'utf8')));
    } catch {
      map = undefined;
    }
  }
  maps.set(fileUrl, map);
  return map;
}

/** The source as Node names it: resolved against the map's own place. */
function sourcePath(source: string, fileUrl: string): string {
  const resolved = new URL(source, `${fileUrl}.map`);
  return resolved.protocol === 'file:' ? fileURLToPath(resolved) : resolved.href;
}

/** The frame as Node writes a mapped one (lib/internal/source_map/prepare_stack_trace.js). */
function mappedFrame(site: NodeJS.CallSite, caller: NodeJS.CallSite | undefined): string {
  const fileName = site.getFileName();
  const line = site.getLineNumber();
  const column = site.getColumnNumber();
  if (!fileName || !line || !column) return `${site}`;
  // V8 names an ES module's file by its URL, a CommonJS one by its path.
  const fileUrl = fileName.startsWith('/') ? pathToFileURL(fileName).href : fileName;
  const map = mapOf(fileUrl);
  if (!map) return `${site}`;
  const entry = map.findEntry(line - 1, column - 1);
  if (!('originalSource' in entry)) return `${site}`;
  // The original name of the function the frame is in (V8 gives the minified one): the name mapped at
  // its start, else the name its caller called it by when the caller is in the same file.
  const nameAt = (line: number | null, column: number | null) => {
    const found = line && column ? map.findEntry(line - 1, column - 1) : {};
    return 'name' in found ? found.name : undefined;
  };
  const original = nameAt(site.getEnclosingLineNumber(), site.getEnclosingColumnNumber())
    ?? (caller?.getFileName() === fileName ? nameAt(caller!.getLineNumber(), caller!.getColumnNumber()) : undefined);
  const typeName = site.getTypeName();
  const generated = `${typeName !== null && typeName !== 'global' ? `${typeName}.` : ''}${site.getFunctionName() ?? site.getMethodName() ?? '<anonymous>'}`;
  const name = original || generated;
  return `${site.isAsync() ? 'async ' : ''}${name} (${sourcePath(entry.originalSource, fileUrl)}:${entry.originalLine + 1}:${entry.originalColumn + 1})`;
}

function prepareStackTrace(error: Error, sites: NodeJS.CallSite[]): string {
  let header: string;
  try {
    header = Error.prototype.toString.call(error);
  } catch {
    header = 'Error';
  }
  const frames = sites.map((site, index) => {
    try {
      return mappedFrame(site, sites[index + 1]);
    } catch {
      return `${site}`;
    }
  });
  return [header, ...frames].join('\n    at ');
}

// Left alone when Node maps traces itself (NODE_OPTIONS=--enable-source-maps). Node 22 gives
// Error.prepareStackTrace its own default formatter, so its presence says nothing; this module is
// the bundle's first.
if (!process.sourceMapsEnabled) Error.prepareStackTrace = prepareStackTrace;
