import { config } from '#platform/config.ts';
import { ApiError } from '#platform/errors.ts';
import { lambdaMaxResponseBytes } from '#platform/response.ts';
import {
  buildStatement, InvalidPeriod, smallestLineBytes, statementCsv, statementLineBytes, statementPeriod, type StatementFormat, type StatementRow,
} from '#domain/statements.ts';
import { statementRowPages } from '#store/transactions.ts';

/** Room in Lambda's response for the status and headers around the body. */
const responseHeadroomBytes = 16 * 1024;
/** JSON escapes a character into at most six bytes (`\u0001`): a body this small cannot outgrow the response. */
const surelyFits = (lambdaMaxResponseBytes - responseHeadroomBytes) / 6;
const megabytes = (count: number) => (count / 1_000_000).toFixed(1);

/**
 * More than a response carries: a clear refusal instead of the platform's failure (decision 096).
 * When the read stopped at the bound, what was read is a floor ("more than").
 */
function tooLarge(format: StatementFormat, maxBytes: number, payments: number, bytes: number, readWhole: boolean): ApiError {
  const csv = format === 'csv';
  const floor = readWhole ? '' : 'more than ';
  return new ApiError(
    'invalid_period',
    `This period's statement (${floor}${payments} payments, ${floor}${megabytes(bytes)} MB as ${csv ? 'CSV' : 'JSON'}) is more than one answer carries (${megabytes(maxBytes)} MB): ask for a shorter period${csv ? '' : ', or for CSV (Accept: text/csv), about a third of the size'}.`,
  );
}

/**
 * GET /statements: the period's statement as the body to send, in the format asked, or
 * `invalid_period` for a period the contract refuses or a statement larger than one answer carries.
 */
export async function statementBody(organizationId: string, query: Parameters<typeof statementPeriod>[0], format: StatementFormat, now = new Date()): Promise<string> {
  let period: { from: string; to: string };
  try {
    period = statementPeriod(query, now);
  } catch (error) {
    if (error instanceof InvalidPeriod) throw new ApiError('invalid_period', error.message);
    throw error;
  }
  const { STATEMENT_MAX_BYTES: maxBytes } = config();
  // The lines are measured as they are read, and the read stops once they alone pass the bound: a
  // refused statement costs what the bound allows, not what the organization's history holds.
  const rows: StatementRow[] = [];
  let lineBytes = 0;
  const smallest = smallestLineBytes(format);
  for await (const page of statementRowPages(organizationId, period, () => (maxBytes - lineBytes) / smallest + 1)) {
    for (const row of page) {
      rows.push(row);
      lineBytes += statementLineBytes(row, format);
    }
    if (lineBytes > maxBytes) throw tooLarge(format, maxBytes, rows.length, lineBytes, false);
  }
  const statement = buildStatement(organizationId, period, rows, now);
  const body = format === 'csv' ? statementCsv(statement) : JSON.stringify(statement);
  // The lines fit; with the envelope around them the body may still not. And the body travels
  // JSON-escaped inside Lambda's response: references full of quotes, backslashes or control
  // characters grow it by up to six times, past Lambda's limit under the bound (decision 103).
  const bytes = Buffer.byteLength(body);
  const travelling = bytes <= surelyFits ? bytes : Buffer.byteLength(JSON.stringify(body));
  if (bytes > maxBytes || travelling > lambdaMaxResponseBytes - responseHeadroomBytes) throw tooLarge(format, maxBytes, rows.length, Math.max(bytes, travelling), true);
  return body;
}
