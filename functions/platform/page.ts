import { createHash } from 'node:crypto';
import { escapeHtml } from '#domain/html.ts';
import { okText, type ApiResponse } from './response.ts';

/**
 * The page kit: every HTML page the service answers (the links e-mailed to members open them;
 * docs/decisions/110, 112) is made and sent through here, so each has the same layout, escaping and
 * headers. Their URLs carry credentials (`?token=`), and a page is text for a person:
 * - Content-Security-Policy, derived from what the page declares it needs (`PagePolicy`): by default
 *   nothing loads and no script runs (`default-src 'none'`); an inline script or style is allowed by
 *   the SHA-256 of its very text, which the kit computes from the text it places, so the policy cannot
 *   drift from the page; never `'unsafe-inline'` or `'unsafe-eval'`. Always: the page cannot be framed
 *   (`frame-ancestors 'none'`), a form posts only back to the service (`form-action 'self'`), no
 *   `<base>` can move its links (`base-uri 'none'`);
 * - X-Frame-Options: DENY, for browsers that predate frame-ancestors;
 * - X-Content-Type-Options: nosniff, so the page is never read as anything but HTML;
 * - Referrer-Policy: no-referrer, so a link followed from the page does not carry its token away;
 * - Cache-Control: no-store, so no cache or back button keeps a page shown for a token.
 */

// ---- Escaping ----------------------------------------------------------------------------

/** Markup the kit trusts: made by `html` (whose values are escaped) or by the kit itself. */
export class Html {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

type Value = string | number | Html | readonly Html[] | false | null | undefined;

function render(value: Value): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof Html) return value.markup;
  if (Array.isArray(value)) return value.map((part: Html) => part.markup).join('');
  return escapeHtml(String(value));
}

/** A template of markup: every interpolated string is escaped; only `Html` made here goes in as markup. */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  return new Html(strings.reduce((markup, text, index) => markup + render(values[index - 1]) + text));
}

// ---- Policy and headers ------------------------------------------------------------------

/** Where a kind of content may come from: the service itself, a blob (a worker a bundled script makes), or one inline text. */
export type Source = "'self'" | 'blob:' | 'data:' | { inline: string };

/** What a page needs beyond nothing. Each kind left out stays at `default-src 'none'`. */
export interface PagePolicy {
  scripts?: readonly Source[];
  /**
   * `'unsafe-inline'` only for styles, and only for a page whose bundled script writes its own style
   * sheets (the reference, docs/decisions/115): a style cannot run code. Never beside an inline hash,
   * which would make browsers ignore it.
   */
  styles?: readonly (Source | "'unsafe-inline'")[];
  workers?: readonly Source[];
  connect?: readonly Source[];
  images?: readonly Source[];
  fonts?: readonly Source[];
}

/** The CSP hash source of an inline script's or style's exact text (CSP Level 2: SHA-256 of its UTF-8, base64). */
export function inlineHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

const directives: [keyof PagePolicy, string][] = [
  ['scripts', 'script-src'], ['styles', 'style-src'], ['workers', 'worker-src'], ['connect', 'connect-src'], ['images', 'img-src'], ['fonts', 'font-src'],
];

export function contentSecurityPolicy(policy: PagePolicy = {}): string {
  const styles = policy.styles ?? [];
  if (styles.includes("'unsafe-inline'") && styles.some((source) => typeof source !== 'string')) throw new Error("a page's styles are hashed or 'unsafe-inline', not both");
  const allowed = directives.flatMap(([kind, directive]) => {
    const sources = [...new Set((policy[kind] ?? []).map((source) => (typeof source === 'string' ? source : inlineHash(source.inline))))];
    return sources.length > 0 ? [`${directive} ${sources.join(' ')}`] : [];
  });
  return ["default-src 'none'", ...allowed, "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'"].join('; ');
}

/**
 * How long a browser may keep the page: never (the default; a page for a token), or some seconds
 * for a page that is the same for everyone (the reference).
 */
export type PageCaching = 'no-store' | { publicSeconds: number };

/** The headers of a page with this policy. */
export function headersFor(policy: PagePolicy = {}, caching: PageCaching = 'no-store'): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(policy),
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': caching === 'no-store' ? 'no-store' : `public, max-age=${caching.publicSeconds}`,
  };
}

/** The headers of a page that needs nothing: no script, no style, nothing loaded. */
export const pageHeaders: Readonly<Record<string, string>> = headersFor();

// ---- Layout ------------------------------------------------------------------------------

/** A page's markup and the policy it needs: what `layout` makes and `page` sends. */
export interface PageDocument {
  html: string;
  policy: PagePolicy;
}

/** The one stylesheet of the kit's pages: readable, with contrast well above WCAG AA (text 16:1, buttons 8:1). */
const stylesheet = [
  'body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1b1b;background:#fff}',
  'main{max-width:42rem;margin:2rem auto;padding:0 1rem}',
  'h1{font-size:1.6rem;line-height:1.25}',
  'button{font:inherit;padding:.5rem 1.25rem;border:0;border-radius:4px;background:#0b4f8a;color:#fff;cursor:pointer}',
  'button:focus-visible,input:focus-visible{outline:3px solid #b35c00;outline-offset:2px}',
  'label{display:block;font-weight:600;margin:1rem 0 .25rem}',
  'input[type=text]{box-sizing:border-box;width:100%;padding:.5rem;font:15px/1.4 ui-monospace,Menlo,Consolas,monospace;color:#1b1b1b;background:#fff;border:1px solid #595959;border-radius:4px}',
  'code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;background:#f2f2f2;color:#1b1b1b}',
  'pre{padding:.75rem;white-space:pre-wrap;word-break:break-all}',
  'dt{font-weight:600}dd{margin:0 0 .5rem}',
].join('\n');

/**
 * A whole page: language, viewport, title, one `<main>` with one `<h1>` (the title), the shared
 * stylesheet, and `scripts` inline at the end of the body, each allowed by its hash and nothing else.
 * A page must work without its scripts: they only add to it.
 */
export function layout(input: { title: string; main: Html; scripts?: readonly string[] }): PageDocument {
  const scripts = input.scripts ?? [];
  for (const script of scripts) if (/<\/?script|<!--/i.test(script)) throw new Error('an inline script must not contain markup that ends it');
  const document = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${input.title}</title>
<style>${new Html(stylesheet)}</style>
</head>
<body><main>
<h1>${input.title}</h1>
${input.main}
</main>${scripts.map((script) => new Html(`<script>${script}</script>`))}</body></html>`;
  return {
    html: document.markup,
    policy: { styles: [{ inline: stylesheet }], ...(scripts.length > 0 ? { scripts: scripts.map((inline) => ({ inline })) } : {}) },
  };
}

/**
 * The small page an e-mailed link opens: a title, its sentences, and optionally one button that POSTs
 * back to the very URL the page was opened at (a form without `action`), which `form-action 'self'`
 * allows wherever the service is served from; no absolute address is needed (unsubscribePage.ts).
 */
export function messagePage(input: { title: string; message: string | readonly string[]; form?: { button: string; fields?: Record<string, string> } }): PageDocument {
  const sentences = typeof input.message === 'string' ? [input.message] : input.message;
  const form = input.form
    ? html`<form method="post">${Object.entries(input.form.fields ?? {}).map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}<button type="submit">${input.form.button}</button></form>`
    : undefined;
  return layout({ title: input.title, main: html`${sentences.map((sentence) => html`<p>${sentence}</p>`)}${form}` });
}

// ---- Answer ------------------------------------------------------------------------------

export interface PageOptions extends PagePolicy {
  status?: number;
  caching?: PageCaching;
}

/**
 * A page for a person, with the kit's headers: its CSP is the document's own policy (a `layout`'s
 * hashes) joined with what `options` adds (a page that loads a bundled script from the service).
 */
export function page(document: string | Html | PageDocument, options: PageOptions | number = {}): ApiResponse {
  const { status = 200, caching = 'no-store', ...added } = typeof options === 'number' ? { status: options } : options;
  const { markup, policy } = typeof document === 'string'
    ? { markup: document, policy: {} }
    : document instanceof Html ? { markup: document.markup, policy: {} } : { markup: document.html, policy: document.policy };
  const joined: Record<string, readonly (Source | "'unsafe-inline'")[]> = {};
  for (const [kind] of directives) {
    const sources = [...(policy[kind] ?? []), ...(added[kind] ?? [])];
    if (sources.length > 0) joined[kind] = sources;
  }
  return okText(markup, 'text/html; charset=utf-8', headersFor(joined as PagePolicy, caching), status);
}
