import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { page, pageHeaders } from '#platform/page.ts';

/**
 * One page kit (functions/platform/page.ts, docs/decisions/110): the only code that answers
 * `text/html` is the kit, so no page can go out without its headers. (The route table and the
 * OpenAPI document name the media type; they answer nothing.)
 */
const root = path.resolve(import.meta.dirname, '../..');

function sources(directory: string): string[] {
  return readdirSync(path.join(root, directory), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)));
}

describe('the page kit', () => {
  it('is the only code of the service that makes a text/html answer', () => {
    const making = [...sources('functions'), ...sources('lib')].filter((file) => readFileSync(path.join(root, file), 'utf8').includes('text/html'));
    expect(making.sort()).toEqual(['functions/contract/openapi.ts', 'functions/contract/routes.ts', 'functions/platform/page.ts']);
  });

  it('puts its headers on every page, whatever the status', () => {
    for (const status of [200, 410]) {
      const answer = page('<!doctype html><p>x</p>', status);
      expect(answer).toMatchObject({ status, text: '<!doctype html><p>x</p>', headers: { ...pageHeaders, 'content-type': 'text/html; charset=utf-8' } });
    }
  });
});
