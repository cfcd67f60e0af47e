import type { PageOptions } from '#platform/page.ts';

/**
 * GET /docs: the API reference (docs/decisions/114). The page is a `<redoc>` element and the script
 * that renders it; Redoc's standalone bundle finds the element and reads its options from its
 * attributes, so the page holds no script of its own. Both addresses are relative (`/docs` →
 * `/openapi.json`, `/docs/reference.js`), so the page works behind any stage path or domain.
 *
 * Its policy is the page kit's (functions/platform/page.ts) opened only as far as Redoc needs, each
 * source the service itself (115): its script; the document it fetches; its search index, built in a
 * worker it starts from a blob; the style sheets styled-components writes at run time (inline
 * styles: nothing on the page comes from a caller); images and fonts only from the service or `data:`,
 * so Redoc's attribution logo on cdn.redoc.ly is refused before any request leaves (the page's style hides its
 * broken image).
 */
export const referencePolicy: PageOptions = {
  scripts: ["'self'"],
  connect: ["'self'"],
  workers: ['blob:'],
  styles: ["'self'", "'unsafe-inline'"],
  images: ["'self'", 'data:'],
  fonts: ["'self'", 'data:'],
  // Nothing on it is secret or per caller: a browser may keep it five minutes, as it keeps the document.
  caching: { publicSeconds: 300 },
};

/** System fonts: Redoc's own (Roboto, Montserrat) would be fetched from a font service. */
const theme = JSON.stringify({
  typography: {
    fontFamily: 'system-ui, -apple-system, sans-serif',
    headings: { fontFamily: 'system-ui, -apple-system, sans-serif' },
    code: { fontFamily: 'ui-monospace, Menlo, Consolas, monospace' },
  },
}).replaceAll('"', '&quot;');

/** The page GET /docs answers (functions/api/discovery/getReference.ts). */
export const referencePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cross-border payments API reference</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; } img[alt="redocly logo"] { display: none; }</style>
</head>
<body>
<redoc spec-url="openapi.json" expand-responses="200,201,202" required-props-first="true" json-sample-expand-level="3" hide-hostname="true" theme="${theme}"></redoc>
<noscript><p>This reference is rendered by a script. The contract it shows is <a href="openapi.json">openapi.json</a> (OpenAPI 3.1).</p></noscript>
<script src="docs/reference.js"></script>
</body>
</html>
`;
