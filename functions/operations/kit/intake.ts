import { ApiError } from '#platform/errors.ts';

/**
 * The intake's idempotency answers, shared by every money-moving operation. The idempotency key
 * is the operation's id; what it is bound to is the request as understood (`hashRequest`,
 * decision 071), so an honest retry spelled differently replays and another meaning is refused.
 */

/** What an intake compares: the fingerprint the stored operation was accepted with. */
export interface Fingerprinted {
  requestHash: string | null;
}

/**
 * The same key again. Undefined when nothing is stored under it (go on and accept). Otherwise the
 * stored operation when the request means the same (the caller answers its stored view: never
 * re-priced, never a second operation), after starting its workflow again when it was left in its
 * starting status (a request that died between commit and start; a repeated start is refused by
 * the engine); `idempotency_key_reused` when it means something else.
 */
export async function replayExisting<R extends Fingerprinted>(
  existing: R | undefined,
  requestHash: string,
  options: { noun: string; differs?: string; startIfStarting?: (record: R) => Promise<void> },
): Promise<R | undefined> {
  if (!existing) return undefined;
  if (existing.requestHash !== requestHash) throw keyReused(options.noun, options.differs);
  await options.startIfStarting?.(existing);
  return existing;
}

/** 409: this organization used the key for another request. */
export function keyReused(noun: string, differs = 'a different request'): ApiError {
  return new ApiError('idempotency_key_reused', `This idempotency key was already used for a ${noun} with ${differs}; use a new key for a new ${noun}.`);
}

/** 409: the key is claimed (another organization, or a concurrent different request); ids are global. */
export function keyConflict(noun: string): ApiError {
  return new ApiError('idempotency_key_conflict', `This idempotency key is already used by another ${noun}; use a new key.`);
}
