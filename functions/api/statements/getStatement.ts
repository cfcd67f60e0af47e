import Negotiator from 'negotiator';
import { endpoint } from '#api/endpoint.ts';
import { okText } from '#platform/response.ts';
import { getStatement } from '#contract/routes.ts';
import { statementBody } from '#operations/statement/statement.ts';
import type { StatementFormat } from '#domain/statements.ts';

/** JSON unless the caller prefers CSV (`Accept: text/csv`); JSON also for anything else asked. */
const mediaTypes = ['application/json', 'text/csv'];

/** GET /statements: the period's lines, as JSON or CSV (functions/operations/statement/statement.ts). */
export const handler = endpoint(getStatement, async ({ caller, query, event }) => {
  const format: StatementFormat = new Negotiator({ headers: { accept: event.headers?.accept } }).mediaType(mediaTypes) === 'text/csv' ? 'csv' : 'json';
  const body = await statementBody(caller.organizationId, query, format);
  // Answered as measured, not serialized a second time. The same address answers two media types: a cache must key on Accept.
  return okText(body, format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json', { vary: 'accept' });
});
