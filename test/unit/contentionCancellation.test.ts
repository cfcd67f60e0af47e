import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { isContentionCancellation, isDependencyUnavailable } from '#platform/errors.ts';

/** A cancelled TransactWriteItems as the SDK hands it over, with DynamoDB's per-item codes. */
const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({ message: 'Transaction cancelled', $metadata: {}, CancellationReasons: codes.map((Code) => ({ Code })) });

describe('a transaction cancelled by contention', () => {
  it('is a busy store once transactWrite has given up on it: 503 unavailable, never a bare 500', () => {
    for (const error of [cancelled('None', 'TransactionConflict'), cancelled('ThrottlingError', 'None', 'None'), cancelled('TransactionConflict', 'TransactionConflict')]) {
      expect(isContentionCancellation(error)).toBe(true);
      expect(isDependencyUnavailable(error)).toBe(true);
    }
  });

  it('is not one when a condition refused it, or when no item says why', () => {
    for (const error of [cancelled('ConditionalCheckFailed', 'TransactionConflict'), cancelled('None', 'ConditionalCheckFailed'), cancelled('None', 'None'), cancelled('ValidationError')]) {
      expect(isContentionCancellation(error)).toBe(false);
      expect(isDependencyUnavailable(error)).toBe(false);
    }
    expect(isContentionCancellation(new Error('TransactionConflict'))).toBe(false);
  });
});

describe('a call whose answer was lost', () => {
  // As @smithy/node-http-handler hands them over once the SDK's own retries are spent.
  const timedOut = Object.assign(new Error('Connection timed out after 2000 ms'), { name: 'TimeoutError' });
  const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8000'), { code: 'ECONNREFUSED' });

  it('is an unavailable dependency (503: it may or may not have taken effect; retry with the same key), never a bare 500', () => {
    for (const error of [timedOut, reset, refused]) expect(isDependencyUnavailable(error)).toBe(true);
  });

  it('is told apart from our own failures and from refusals', () => {
    for (const error of [new Error('boom'), new TypeError('x is undefined'), Object.assign(new Error('no'), { name: 'ValidationException', $metadata: { httpStatusCode: 400 } })]) {
      expect(isDependencyUnavailable(error)).toBe(false);
    }
  });
});
