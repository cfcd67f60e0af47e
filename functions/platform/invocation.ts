import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The signal of the invocation a piece of work runs for, aborted when its time has run out (the
 * endpoint's early timeout has already answered 503). Calls made under it are abandoned with it:
 * in one process serving many invocations (the local twin) a timed-out request's remaining calls
 * would otherwise still run, queued behind and adding to the load that made it late; in Lambda
 * they would resume, frozen, inside the container's next invocation.
 */
const invocation = new AsyncLocalStorage<AbortSignal>();

export function withInvocationSignal<T>(signal: AbortSignal, work: () => Promise<T>): Promise<T> {
  return invocation.run(signal, work);
}

export function invocationSignal(): AbortSignal | undefined {
  return invocation.getStore();
}

/** Work that belongs to no invocation (an execution or a delivery a handler started runs on its own). */
export function outsideAnyInvocation<T>(work: () => T): T {
  return invocation.exit(work);
}
