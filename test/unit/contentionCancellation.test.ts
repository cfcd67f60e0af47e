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
