import { AmountError, parseDecimal, scaleOf } from '#domain/money.ts';
import { validationError } from '#platform/errors.ts';

/**
 * An amount a request asks to move, read once for every operation: exact at its currency's scale
 * (extra decimals refused, never rounded; decision 072's largest amount), greater than zero, and
 * in the one currency the operation moves. A mistake is the contract's 400 `validation` at `path`
 * (the amount's own path; a wrong currency is reported at its sibling `currency`).
 */
export function requestedAmount(text: string, currency: string, path: (string | number)[], only?: { currency: string; refusal: string }): bigint {
  if (only && currency !== only.currency) throw validationError([{ path: [...path.slice(0, -1), 'currency'], message: only.refusal }]);
  let minor: bigint;
  try {
    minor = parseDecimal(text, scaleOf(currency)!);
  } catch (error) {
    if (error instanceof AmountError) throw validationError([{ path, message: error.message }]);
    throw error;
  }
  if (minor <= 0n) throw validationError([{ path, message: 'must be greater than 0' }]);
  return minor;
}
