import { createHash } from 'node:crypto';

/** A request as the service understood it: amounts as bigint minor units, never as spelled. */
export type RequestMeaning = bigint | string | number | boolean | null | undefined | RequestMeaning[] | { [field: string]: RequestMeaning };

/**
 * The fingerprint an idempotency key is bound to (DESIGN.md, Idempotency; docs/decisions/071):
 * the same key with the same request answers what the first answered; with another request, 409.
 * "The same request" is the same meaning, whatever its spelling, on every money-moving POST: the
 * caller passes the parsed body (unknown fields stripped, defaults applied) with each amount parsed
 * to minor units (a bigint: "100" and "100.00" are one amount), the fields the service ignores left
 * out (undefined) and the values it folds folded (an address's case). Key order and whitespace
 * never matter: the form hashed is canonical.
 */
export function hashRequest(meaning: RequestMeaning): string {
  return createHash('sha256').update(canonical(meaning)).digest('hex');
}

/**
 * Code point order, as the hashes stored since decision 071 were made. Keys of one object are
 * distinct: never 0 (so `a <= b` is the one mutant of it that survives, equivalent; a disable comment
 * would hide `a >= b` with it, which the tests kill).
 */
const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : 1);

function canonical(value: RequestMeaning): string {
  if (typeof value === 'bigint') return JSON.stringify(value.toString());
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(byKey);
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
