import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, headersFor, html, Html, inlineHash, layout, messagePage, page, pageHeaders } from '#platform/page.ts';

/**
 * One page kit (functions/platform/page.ts, docs/decisions/110, 112): the only code that answers
 * `text/html` is the kit, so no page can go out without its headers. (The route table and the
 * OpenAPI document name the media type; they answer nothing.) Its CSP is derived from what the page
 * holds: an inline script or style runs only by the hash of its exact text.
 */
const root = path.resolve(import.meta.dirname, '../..');

function sources(directory: string): string[] {
  return readdirSync(path.join(root, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

/** The CSP hash of a text, computed here independently of the kit. */
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(Buffer.from(text, 'utf8')).digest('base64')}'`;

function directivesOf(policy: string): Map<string, string[]> {
  return new Map(policy.split(';').map((directive) => directive.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));
}

describe('the page kit', () => {
  it('is the only code of the service that makes a text/html answer', () => {
    const making = [...sources('functions'), ...sources('lib')].filter((file) => readFileSync(path.join(root, file), 'utf8').includes('text/html'));
    expect(making.sort()).toEqual(['functions/contract/openapi.ts', 'functions/contract/routes.ts', 'functions/platform/page.ts']);
  });

  it('puts its headers on every page, whatever the status', () => {
    for (const status of [200, 410]) {
      const answer = page('<!doctype html><p>x</p>', { status });
      expect(answer).toMatchObject({ status, text: '<!doctype html><p>x</p>', headers: { ...pageHeaders, 'content-type': 'text/html; charset=utf-8' } });
    }
    expect(page('<p>x</p>', 410).status).toBe(410);
    expect(pageHeaders).toEqual({
      'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
    });
  });

  it('escapes every interpolated string; only markup made by the kit goes in as markup', () => {
    const hostile = `<script>alert("x")</script>' onmouseover='x' &amp;`;
    const made = html`<p title="${hostile}">${hostile}</p>${[html`<b>${hostile}</b>`]}${new Html('<i>kit</i>')}${undefined}${false}`;
    expect(made.markup).not.toContain('<script');
    expect(made.markup).not.toMatch(/' onmouseover/);
    expect(made.markup).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;&#39; onmouseover=&#39;x&#39; &#38;amp;');
    expect(made.markup).toContain('<b>&#60;script');
    expect(made.markup).toContain('<i>kit</i>');
    const shown = messagePage({ title: '<h1>', message: ['<script>', 'two'], form: { button: '<b>', fields: { 'a"b': '"><script>' } } }).html;
    expect(shown).not.toMatch(/<script|<b>|"><script/);
    expect(shown).toContain('<title>&#60;h1&#62;</title>');
  });

  it('lays a page out as axe wants it: a language, a viewport, a title, one main with one h1', () => {
    const { html: markup } = layout({ title: 'Hello', main: html`<p>x</p>` });
    expect(markup).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(markup).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(markup).toContain('<title>Hello</title>');
    expect(markup.match(/<main>/g)).toHaveLength(1);
    expect(markup.match(/<h1>/g)).toHaveLength(1);
  });

  it('derives the CSP from the inline script and style the page holds, by the SHA-256 of their text', () => {
    const script = 'document.body.dataset.ran = "yes";';
    const document = layout({ title: 'Scripted', main: html`<p>x</p>`, scripts: [script] });
    const answer = page(document, { status: 200 });
    const policy = directivesOf(answer.headers!['content-security-policy']!);
    // Every inline script and style in the markup, hashed here, is allowed; nothing else is.
    const inline = (tag: string) => [...document.html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((match) => sha256(match[1]!));
    expect(inline('script')).toEqual([sha256(script)]);
    expect(policy.get('script-src')).toEqual(inline('script'));
    expect(policy.get('style-src')).toEqual(inline('style'));
    expect(inlineHash(script)).toBe(sha256(script));
    expect(policy.get('default-src')).toEqual(["'none'"]);
    for (const fixed of ['base-uri', 'frame-ancestors']) expect(policy.get(fixed)).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'self'"]);
    expect(answer.headers!['content-security-policy']).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    // A page without script has no script-src at all.
    expect(directivesOf(page(layout({ title: 'Plain', main: html`` })).headers!['content-security-policy']!).has('script-src')).toBe(false);
  });

  it('lets a page declare more (a bundled script from the service, a blob worker) without loosening the fixed directives', () => {
    const answer = page(layout({ title: 'Docs', main: html`<div id="app"></div>` }), { scripts: ["'self'"], workers: ['blob:'], connect: ["'self'"] });
    const policy = directivesOf(answer.headers!['content-security-policy']!);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('worker-src')).toEqual(['blob:']);
    expect(policy.get('connect-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toHaveLength(1);
    expect(headersFor({ scripts: ["'self'"] })['content-security-policy']).toBe(contentSecurityPolicy({ scripts: ["'self'"] }));
  });

  it('refuses an inline script that could end its own element', () => {
    expect(() => layout({ title: 'x', main: html``, scripts: ['"</script><img src=x>"'] })).toThrow();
  });
});
