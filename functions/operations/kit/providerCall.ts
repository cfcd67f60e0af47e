import { ProviderUnavailable } from '#platform/providerErrors.ts';
import type { OperationProgress, StepResult } from './progress.ts';

/**
 * Calling a provider with a call that cannot be taken back (a payout, a chain send, an off-ramp
 * deposit, an on-ramp delivery), the same for every operation. The call is made from the status
 * that says it may be under way, and the provider is idempotent on the operation's reference:
 *
 *   answered     refused (FAILED, the hold released) or accepted, as the operation says
 *   unanswered   it may have landed: the provider is asked by reference (never called again); its
 *                answer is taken as the call's, and a provider that does not know parks the
 *                operation IN_DOUBT for a person (`inDoubt`). An ask that fails is asked again,
 *                up to `askAttempts` times in all, before the operation parks: a status call's
 *                hiccup is not the provider saying it does not know
 *   unavailable  nothing happened there: the attempt is counted and the call made again after a
 *                wait; after `maxAttempts` the operation fails (`gaveUp`: FAILED, its hold
 *                released where it has one)
 */
export interface ProviderCall<T, O extends string, A> {
  call(): Promise<A>;
  /** The provider's answer as the move it makes (and the wait after it). */
  answered(answer: A): { transition: T; waitSeconds?: number };
  /** It may have landed unseen. */
  unanswered: {
    /** The port's error that says so (PayoutUnanswered, ChainSendUnanswered, ...). */
    error: abstract new (...args: never[]) => Error;
    /** Asked once: the answer taken as the call's, or undefined when the provider does not know it. */
    askByReference(): Promise<A | undefined>;
    /** Unknown to the provider: IN_DOUBT for a person. */
    inDoubt: T;
  };
  /** Nothing happened there (ProviderUnavailable). */
  unavailable: {
    /** The attempts made, this one counted (the count is written before the call). */
    attempts: number;
    maxAttempts: number;
    /** Attempts left: the move that counts the retry, answered as `outcome` (or, without one, as where it lands). */
    retry: { transition: T; waitSeconds: number; outcome?: O };
    /** The last attempt: FAILED, the hold released where there is one. */
    gaveUp: T;
  };
}

type Mover<R, T, O extends string> = Pick<OperationProgress<unknown, R, string, O, T>, 'settle' | 'write' | 'reload' | 'outcomeOf'>;

/** The call, and the operation's one move its answer (or its silence) means. */
export async function callProvider<R, T, O extends string, A>(progress: Mover<R, T, O>, record: R, spec: ProviderCall<T, O, A>): Promise<StepResult<O>> {
  let answer: A;
  try {
    answer = await spec.call();
  } catch (error) {
    if (error instanceof ProviderUnavailable) {
      const { attempts, maxAttempts, retry, gaveUp } = spec.unavailable;
      if (attempts >= maxAttempts) return progress.settle(record, gaveUp);
      if (retry.outcome === undefined) return progress.settle(record, retry.transition, { waitSeconds: retry.waitSeconds });
      const counted = await progress.write(record, retry.transition);
      return counted ? { outcome: retry.outcome, waitSeconds: retry.waitSeconds } : progress.outcomeOf(await progress.reload(record));
    }
    if (!(error instanceof spec.unanswered.error)) throw error;
    const known = await askedByReference(spec.unanswered.askByReference);
    if (known === undefined) return progress.settle(record, spec.unanswered.inDoubt);
    answer = known;
  }
  const { transition, waitSeconds } = spec.answered(answer);
  return progress.settle(record, transition, waitSeconds === undefined ? undefined : { waitSeconds });
}

/** Asks of the provider by reference before an operation whose call went unanswered parks IN_DOUBT. */
export const askAttempts = 3;
const askPauseMs = 250;

/** The provider's answer by reference; undefined when it does not know, or when every ask failed. */
async function askedByReference<A>(ask: () => Promise<A | undefined>): Promise<A | undefined> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await ask();
    } catch {
      if (attempt >= askAttempts) return undefined;
      await new Promise((resolve) => setTimeout(resolve, askPauseMs * attempt));
    }
  }
}

/**
 * A provider call that nothing depends on having happened (a status read, an opening or a
 * conversion the provider dedupes): its answer, or undefined when the provider was unavailable
 * (the step waits and asks again). Any other error is thrown.
 */
export async function unlessUnavailable<A>(call: () => Promise<A>): Promise<A | undefined> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProviderUnavailable) return undefined;
    throw error;
  }
}
