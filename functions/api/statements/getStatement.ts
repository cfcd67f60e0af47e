import Negotiator from 'negotiator';
import { endpoint, lambdaMaxResponseBytes, okText } from '#platform/endpoint.ts';
import { config } from '#platform/config.ts';
import { ApiError } from '#platform/errors.ts';
import { getStatement } from '#contract/routes.ts';
import { buildStatement, InvalidPeriod, statementCsv, statementPeriod } from '#domain/statements.ts';
import { statementRows } from '#store/transactions.ts';

/** JSON unless the caller prefers CSV (`Accept: text/csv`); JSON also for anything else asked. */
const mediaTypes = ['application/json', 'text/csv'];

/** Room in Lambda's response for the status and headers around the body. */
const responseHeadroomBytes = 16 * 1024;
/** JSON escapes a character into at most six bytes (`\u0001`): a body this small cannot outgrow the response. */
const surelyFits = (lambdaMaxResponseBytes - responseHeadroomBytes) / 6;

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
  const csv = new Negotiator({ headers: { accept: event.headers?.accept } }).mediaType(mediaTypes) === 'text/csv';
  const body = csv ? statementCsv(statement) : JSON.stringify(statement);
  // More than a response carries: a clear refusal instead of the platform's failure (decision 096).
  // The body travels JSON-escaped inside Lambda's response: references full of quotes, backslashes or
  // control characters grow it by up to six times, past Lambda's limit under the bound (decision 103).
  const bytes = Buffer.byteLength(body);
  const travelling = bytes <= surelyFits ? bytes : Buffer.byteLength(JSON.stringify(body));
  const { STATEMENT_MAX_BYTES: maxBytes } = config();
  if (bytes > maxBytes || travelling > lambdaMaxResponseBytes - responseHeadroomBytes) {
    const megabytes = (count: number) => (count / 1_000_000).toFixed(1);
    throw new ApiError(
      'invalid_period',
      `This period's statement (${statement.lines.length} payments, ${megabytes(Math.max(bytes, travelling))} MB as ${csv ? 'CSV' : 'JSON'}) is more than one answer carries (${megabytes(maxBytes)} MB): ask for a shorter period${csv ? '' : ', or for CSV (Accept: text/csv), about a third of the size'}.`,
    );
  }
  // Answered as measured, not serialized a second time. The same address answers two media types: a cache must key on Accept.
  return okText(body, csv ? 'text/csv; charset=utf-8' : 'application/json', { vary: 'accept' });
});
