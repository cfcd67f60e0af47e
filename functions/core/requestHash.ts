import { createHash } from 'node:crypto';

/**
 * The fingerprint an idempotency key is bound to (DESIGN.md, Idempotency): the same key with the
 * same request answers what the first answered; with another request, 409 idempotency_key_reused.
 * Taken over the parsed body (unknown fields already stripped, defaults applied), so key order,
 * whitespace and ignored fields do not matter.
 */
export function hashRequest(body: unknown): string {
  return createHash('sha256').update(canonical(body)).digest('hex');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

