import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { startTestService } from '../support/service.ts';
import { redoclyLint } from '../support/redoclyLint.ts';
import { servedDocument, type OpenApiDocument } from '../support/servedDocument.ts';
import { deepStrict, strictly } from '../support/strictSchema.ts';
import { referenceScriptFiles, writeReferenceScript } from '../../functions/api/discovery/referenceScript.ts';
import { routes } from '#contract/routes.ts';
import recorded from '#schemas/examples/recorded.json' with { type: 'json' };

/**
 * The API reference (GET /docs, docs/decisions/114 and 115) through HTTP, as a browser gets it: a page
 * with the kit's headers and a policy that lets it load only from the service, its script served by
 * the service byte for byte as the Lambda bundler writes it, and the document it renders complete
 * (every operation described, every recorded example fitting its schema).
 */
const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
let service: LocalService;
let built: string;

beforeAll(async () => {
  service = await startTestService();
  // What the Lambda bundler writes beside the script handler's index.mjs (lib/build/lambdaBundles.ts).
  built = await mkdtemp(path.join(tmpdir(), 'reference-'));
  writeReferenceScript(built);
}, 60_000);

afterAll(async () => {
  await service?.stop();
  if (built) await rm(built, { recursive: true, force: true });
});

/** The raw answer, bytes as sent (fetch would decode a content-encoding). */
function rawGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

function directives(policy: string | null): Map<string, string[]> {
  return new Map((policy ?? '').split(';').map((part) => part.trim().split(/\s+/)).filter(([name]) => name).map(([name, ...sources]) => [name!, sources]));
}

describe('GET /docs', () => {
  it('answers the page with the kit\'s headers and a policy that loads only from the service', async () => {
    const response = await fetch(`${service.url}/docs`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    const policy = directives(response.headers.get('content-security-policy'));
    expect(policy.get('default-src')).toEqual(["'none'"]);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:']);
    expect(policy.get('font-src')).toEqual(["'self'", 'data:']);
    expect(policy.get('worker-src')).toEqual(['blob:']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    // The one loosening (styled-components writes its style sheets at run time): styles only, never script.
    expect(policy.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    const sources = [...policy.values()].flat();
    expect(sources.filter((source) => /^https?:|^\*|unsafe-eval|wasm-unsafe-eval|strict-dynamic/.test(source))).toEqual([]);
  });

  it('references only the service: relative addresses, no inline script, no handler in markup', async () => {
    const html = await (await fetch(`${service.url}/docs`)).text();
    expect(html).not.toMatch(/https?:\/\//i);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![2]!.trim()).toBe('');
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    const base = new URL(`${service.url}/docs`);
    const scriptSource = /src="([^"]+)"/.exec(scripts[0]![1]!)![1]!;
    expect(new URL(scriptSource, base).href).toBe(`${service.url}/docs/reference.js`);
    const specUrl = /<redoc\b[^>]*\bspec-url="([^"]+)"/.exec(html)![1]!;
    expect(new URL(specUrl, base).href).toBe(`${service.url}/openapi.json`);
    // Behind a stage path the same relative addresses stay under it.
    expect(new URL(scriptSource, 'https://api.example.com/prod/docs').href).toBe('https://api.example.com/prod/docs/reference.js');
    expect(new URL(specUrl, 'https://api.example.com/prod/docs').href).toBe('https://api.example.com/prod/openapi.json');
  });
});

describe('GET /docs/reference.js', () => {
  it('answers each encoding byte for byte as the bundler writes it, cacheable and typed', async () => {
    const cases = [
      { acceptEncoding: 'gzip, deflate, br', encoding: 'br', file: referenceScriptFiles.br },
      { acceptEncoding: 'gzip', encoding: 'gzip', file: referenceScriptFiles.gzip },
      { acceptEncoding: 'identity', encoding: undefined, file: referenceScriptFiles.identity },
      { acceptEncoding: 'br;q=0, gzip', encoding: 'gzip', file: referenceScriptFiles.gzip },
    ];
    const identity = await readFile(path.join(built, referenceScriptFiles.identity));
    for (const { acceptEncoding, encoding, file } of cases) {
      const answer = await rawGet(`${service.url}/docs/reference.js`, { 'accept-encoding': acceptEncoding });
      expect(answer.status, acceptEncoding).toBe(200);
      expect(answer.headers['content-type'], acceptEncoding).toBe('text/javascript; charset=utf-8');
      expect(answer.headers['content-encoding'], acceptEncoding).toBe(encoding);
      expect(answer.headers['cache-control'], acceptEncoding).toBe('public, max-age=86400');
      expect(answer.headers.vary, acceptEncoding).toBe('accept-encoding');
      expect(answer.headers['x-content-type-options'], acceptEncoding).toBe('nosniff');
      expect(answer.body.equals(await readFile(path.join(built, file))), acceptEncoding).toBe(true);
      const decoded = encoding === 'br' ? brotliDecompressSync(answer.body) : encoding === 'gzip' ? gunzipSync(answer.body) : answer.body;
      expect(decoded.equals(identity), acceptEncoding).toBe(true);
    }
    // The package's bundle, less its source-map comment (the map is not served), its logo address
    // made an empty SVG of ours, and our menu and code-block accessibility fixes after it.
    const packaged = await readFile(path.join(repositoryRoot, 'node_modules/redoc/bundles/redoc.standalone.js'), 'utf8');
    const fixes = await readFile(path.join(repositoryRoot, 'functions/api/discovery/referenceAccessibility.js'), 'utf8');
    const served = identity.toString('utf8');
    expect(served.endsWith(`\n${fixes}`)).toBe(true);
    expect(served.slice(0, -fixes.length - 1)).toBe(
      packaged.replace('"https://cdn.redoc.ly/redoc/logo-mini.svg"', `"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E"`).replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'),
    );
  });

  it('answers 304 with no body to the ETag it gave', async () => {
    const first = await rawGet(`${service.url}/docs/reference.js`, { 'accept-encoding': 'br' });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await rawGet(`${service.url}/docs/reference.js`, { 'accept-encoding': 'br', 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(again.headers.etag).toBe(etag);
    // Each encoding is a representation of its own: the brotli ETag does not validate the gzip form.
    const gzip = await rawGet(`${service.url}/docs/reference.js`, { 'accept-encoding': 'gzip', 'if-none-match': etag });
    expect(gzip.status).toBe(200);
    expect(gzip.headers.etag).not.toBe(etag);
  });

  it('names no address it would fetch at run time', async () => {
    const script = await readFile(path.join(built, referenceScriptFiles.identity), 'utf8');
    const hosts = new Set([...script.matchAll(/https?:\/\/([a-z0-9.-]+\.[a-z]{2,})/gi)].map((match) => match[1]!.toLowerCase()));
    // No font service, CDN or analytics: a new Redoc that adds one fails here before it ships.
    const fetchers = [...hosts].filter((host) => /fonts\.(googleapis|gstatic)|jsdelivr|unpkg|cdnjs|googletagmanager|google-analytics|segment|sentry|otel|telemetry/.test(host));
    expect(fetchers).toEqual([]);
    // Every other address is a link for people, a JSON Schema or XML namespace id, or an error page: never
    // loaded. The one image it loaded (Redoc's attribution logo on cdn.redoc.ly) is an empty SVG of ours.
    const known = /^(www\.w3\.org|json-schema\.org|redocly\.com|redoc\.ly|cdn\.redoc\.ly|github\.com|git\.io|raw\.githubusercontent\.com|stackoverflow\.com|reactjs\.org|fb\.me|marked\.js\.org|example\.com|api\.|localhost)/;
    expect([...hosts].filter((host) => !known.test(host))).toEqual([]);
    const loads = [...script.matchAll(/src:"([a-z]+:[^"]+)"/g)].map((match) => match[1]!.split(',')[0]);
    expect(loads).toEqual(['data:image/svg+xml']);
  });
});

describe('the document the page renders', () => {
  let document: OpenApiDocument & { openapi: string; webhooks: Record<string, Record<string, { description?: string }>>; 'x-tagGroups': unknown[] };

  beforeAll(async () => {
    document = (await (await fetch(`${service.url}/openapi.json`)).json()) as typeof document;
  });

  it('is OpenAPI 3.1 and passes redocly lint as served', async () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect((await redoclyLint(document)).totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 60_000);

  it('describes every operation and every webhook', () => {
    const described = Object.entries(document.paths).flatMap(([pathName, item]) =>
      Object.entries(item).map(([method, operation]) => ({ at: `${method.toUpperCase()} ${pathName}`, description: (operation as { description?: string }).description })),
    );
    expect(described).toHaveLength(routes.length);
    for (const { at, description } of described) expect(description?.length ?? 0, at).toBeGreaterThan(40);
    expect(Object.keys(document.webhooks).sort()).toEqual(['offRampEvent', 'onRampEvent', 'transactionEvent']);
    for (const [name, item] of Object.entries(document.webhooks)) expect(item.post?.description, name).toBeTruthy();
    expect(document['x-tagGroups'].length).toBeGreaterThan(0);
  });

  it('carries every recorded example, and every one fits its schema', () => {
    const { checked, mismatches } = servedDocument(document).examples();
    expect(mismatches).toEqual([]);
    const recordedCount = Object.values(recorded.operations).reduce((sum, entry) => sum + Object.keys(entry.responses).length + ('request' in entry ? 1 : 0), 0)
      + Object.keys(recorded.webhooks).length;
    expect(checked).toHaveLength(recordedCount);
    expect(checked.filter((at) => at.startsWith('webhook '))).toHaveLength(3);
  });

  it('records no answer with a field the contract does not name', () => {
    for (const [operationId, entry] of Object.entries(recorded.operations)) {
      const definition = routes.find((row) => row.operationId === operationId);
      expect(definition, operationId).toBeDefined();
      for (const [status, body] of Object.entries(entry.responses)) {
        const schema = definition!.responses[Number(status)]?.schema;
        if (schema) strictly(deepStrict(schema), body);
      }
    }
  });
});
