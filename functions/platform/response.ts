/**
 * What a handler answers, before the endpoint's lifecycle turns it into API Gateway's result: below
 * the API layer so a page (page.ts) or a served file can shape an answer without the request chain.
 */

/**
 * Lambda's synchronous response limit: the result as JSON ("Response payload size exceeded maximum
 * allowed payload size (6291556 bytes)"). A body travels JSON-escaped inside it; past it API Gateway
 * answers 500 itself, whatever the handler meant (docs/decisions/103; lib/local/httpServer.ts holds it here).
 */
export const lambdaMaxResponseBytes = 6 * 1024 * 1024 + 100;

export interface ApiResponse {
  status: number;
  body?: unknown;
  /**
   * A body sent as it is, not as JSON, its content type in `headers`: a statement as CSV (096), a
   * page for a person on the rows whose response says `html` (094; made by page.ts, 110).
   */
  text?: string;
  /**
   * A body of bytes sent as they are (the reference page's pre-compressed script, 114), its content
   * type in `headers`: base64 in the result with `isBase64Encoded`, which API Gateway decodes; it counts
   * against Lambda's response limit at 4/3 of its size.
   */
  bytes?: Uint8Array;
  headers?: Record<string, string>;
}

export function ok(body: unknown, status = 200, headers?: Record<string, string>): ApiResponse {
  return { status, body, ...(headers ? { headers } : {}) };
}

/** A body that is not JSON, in this media type. */
export function okText(text: string, contentType: string, headers?: Record<string, string>, status = 200): ApiResponse {
  return { status, text, headers: { ...headers, 'content-type': contentType } };
}
