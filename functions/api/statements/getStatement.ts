import Negotiator from 'negotiator';
import { endpoint, ok, okText } from '#platform/endpoint.ts';
import { ApiError } from '#platform/errors.ts';
import { getStatement } from '#contract/routes.ts';
import { buildStatement, InvalidPeriod, statementCsv, statementPeriod } from '#domain/statements.ts';
import { statementRows } from '#store/transactions.ts';

/** JSON unless the caller prefers CSV (`Accept: text/csv`); JSON also for anything else asked. */
const mediaTypes = ['application/json', 'text/csv'];

export const handler = endpoint(getStatement, async ({ caller, query, event }) => {
  const now = new Date();
  let period: { from: string; to: string };
  try {
    period = statementPeriod(query, now);
  } catch (error) {
    if (error instanceof InvalidPeriod) throw new ApiError('invalid_period', error.message);
    throw error;
  }
  const statement = buildStatement(caller.organizationId, period, await statementRows(caller.organizationId, period), now);
  const wanted = new Negotiator({ headers: { accept: event.headers?.accept } }).mediaType(mediaTypes);
  // The same address answers two media types: a cache must key on Accept.
  if (wanted === 'text/csv') return okText(statementCsv(statement), 'text/csv; charset=utf-8', { vary: 'accept' });
  return ok(statement, 200, { vary: 'accept' });
});
