import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib';
import type { ApiResponse } from '#platform/response.ts';

/**
 * The script that renders GET /docs: Redoc's standalone bundle from npm (docs/decisions/114), served
 * by the service itself so the page makes no request that leaves it. It is kept out of the handler's
 * JS bundle: the Lambda bundler writes it beside `index.mjs` with its brotli and gzip forms
 * (lib/build/lambdaBundles.ts: writeReferenceScript), and the handler sends the form the browser
 * accepts, base64-encoded as API Gateway takes bytes from Lambda. Run locally (no bundle), the same
 * three forms are made from the package on the first request, once.
 */
const packageFile = 'redoc/bundles/redoc.standalone.js';

/** The files beside the handler's bundle: the script, then its brotli and gzip forms. */
export const referenceScriptFiles = { identity: 'reference.js', br: 'reference.js.br', gzip: 'reference.js.gz' } as const;

type Encoding = keyof typeof referenceScriptFiles;

interface ReferenceScript {
  forms: Record<Encoding, Buffer>;
  /** Of the script's bytes; each encoding's ETag adds its name (a strong validator names one representation). */
  digest: string;
}

/**
 * The one address of another origin the bundle would load: Redoc's attribution logo. The page's CSP
 * would refuse it before any request left, but a refusal is still a violation in every browser's
 * console; an empty SVG of our own takes its place (the page's style hides the image anyway).
 */
const thirdPartyLogo = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const emptyLogo = `"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"`;

/**
 * The script as browsers get it: the package's bundle without its last line's `sourceMappingURL`
 * (the map is not served, and a browser's developer tools would ask for it), and with no address
 * of another origin. A Redoc upgrade that moves the logo fails here, at build time.
 */
export function referenceScriptSource(): Buffer {
  const text = readFileSync(createRequire(import.meta.url).resolve(packageFile), 'utf8');
  if (text.split(thirdPartyLogo).length !== 2) throw new Error(`${packageFile}: expected the logo address ${thirdPartyLogo} once; check the bundle for addresses of other origins`);
  const bundle = text.replace(thirdPartyLogo, emptyLogo).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n');
  return Buffer.from(`${bundle}\n${readFileSync(new URL('./referenceAccessibility.js', import.meta.url), 'utf8')}`);
}

const brotliOptions = (source: Buffer) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: source.length } });
const gzipOptions = { level: 9 };

/** Off the event loop: the local service makes them while it answers other requests (brotli at 11 takes seconds). */
async function compressed(source: Buffer): Promise<Record<Encoding, Buffer>> {
  const [br, gz] = await Promise.all([promisify(brotliCompress)(source, brotliOptions(source)), promisify(gzip)(source, gzipOptions)]);
  return { identity: source, br, gzip: gz };
}

/** Build time (the Lambda bundler is synchronous): the three files, into the handler's bundle directory. */
export function writeReferenceScript(directory: string): void {
  const source = referenceScriptSource();
  const forms: Record<Encoding, Buffer> = { identity: source, br: brotliCompressSync(source, brotliOptions(source)), gzip: gzipSync(source, gzipOptions) };
  for (const encoding of Object.keys(referenceScriptFiles) as Encoding[]) writeFileSync(join(directory, referenceScriptFiles[encoding]), forms[encoding]);
}

let loaded: Promise<ReferenceScript> | undefined;

/** The files beside this module once bundled (a Lambda), else made from the package (the local service). */
function referenceScript(): Promise<ReferenceScript> {
  loaded ??= (async () => {
    const directory = fileURLToPath(new URL('.', import.meta.url));
    const beside = (Object.keys(referenceScriptFiles) as Encoding[]).every((encoding) => existsSync(join(directory, referenceScriptFiles[encoding])));
    const forms = beside
      ? { identity: readFileSync(join(directory, referenceScriptFiles.identity)), br: readFileSync(join(directory, referenceScriptFiles.br)), gzip: readFileSync(join(directory, referenceScriptFiles.gzip)) }
      : await compressed(referenceScriptSource());
    return { forms, digest: createHash('sha256').update(forms.identity).digest('base64url').slice(0, 32) };
  })();
  loaded.catch(() => (loaded = undefined));
  return loaded;
}

/** The first encoding of ours the Accept-Encoding header admits (a `q=0` refuses one), else the script as it is. */
function chosenEncoding(acceptEncoding: string | undefined): Encoding {
  const admitted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((part) => part.trim().toLowerCase().split(';'))
      .filter(([, ...parameters]) => !parameters.some((parameter) => /^\s*q=0(\.0*)?\s*$/.test(parameter)))
      .map(([name]) => name),
  );
  if (admitted.has('br')) return 'br';
  if (admitted.has('gzip')) return 'gzip';
  return 'identity';
}

/**
 * The script's answer: the form the browser accepts, cacheable for a day and revalidated by its ETag
 * (its URL carries no version, so a new Redoc reaches browsers within a day; a 304 costs no body).
 */
export async function referenceScriptResponse(headers: Record<string, string | undefined>): Promise<ApiResponse> {
  const script = await referenceScript();
  const encoding = chosenEncoding(headers['accept-encoding']);
  const etag = `"${script.digest}${encoding === 'identity' ? '' : `-${encoding}`}"`;
  const caching = {
    'cache-control': 'public, max-age=86400',
    etag,
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
  };
  if (headers['if-none-match']?.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag)) return { status: 304, headers: caching };
  return {
    status: 200,
    bytes: script.forms[encoding],
    headers: {
      ...caching,
      'content-type': 'text/javascript; charset=utf-8',
      ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
    },
  };
}
