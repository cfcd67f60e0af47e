import { okText, type ApiResponse } from './endpoint.ts';

/**
 * The page kit: every HTML page the service answers (the links e-mailed to members open them;
 * docs/decisions/110) goes out through `page`, so each carries the same headers. Their URLs carry
 * credentials (`?token=`), and a page is text for a person, never an application:
 * - Content-Security-Policy: nothing loads, no script runs (`default-src 'none'`), the page cannot
 *   be framed (`frame-ancestors 'none'`, a click cannot be borrowed), a form posts only back to the
 *   service (`form-action 'self'`), no `<base>` can move its links (`base-uri 'none'`). The pages
 *   have no style sheet, script or image, so nothing else is allowed;
 * - X-Frame-Options: DENY, for browsers that predate frame-ancestors;
 * - X-Content-Type-Options: nosniff, so the page is never read as anything but HTML;
 * - Referrer-Policy: no-referrer, so a link followed from the page does not carry its token away;
 * - Cache-Control: no-store, so no cache or back button keeps a page shown for a token.
 */
export const pageHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * A page for a person, with the kit's headers; `overrides` replaces some of them for a page that needs
 * more than nothing (the API reference runs a script under a policy of its own: docs/decisions/115).
 */
export function page(html: string, status = 200, overrides: Readonly<Record<string, string>> = {}): ApiResponse {
  return okText(html, 'text/html; charset=utf-8', { ...pageHeaders, ...overrides }, status);
}
