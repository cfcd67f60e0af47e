/**
 * Tests wait on a condition with a deadline, never on a fixed sleep. `until` reads a value again
 * and again until `done` holds and answers it; past the deadline the test fails naming `what` and
 * the last value read, so a timeout says where things stood.
 */
export interface WaitOptions {
  what: string;
  timeoutMs?: number;
  intervalMs?: number;
}

export async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, options: WaitOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${options.what}; last seen: ${shown(value)}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}

/** `probe` answers the value once the condition holds and undefined until then. */
export async function eventually<T>(probe: () => Promise<T | undefined>, options: WaitOptions): Promise<T> {
  return (await until(probe, (value) => value !== undefined, options)) as T;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));
  return text === undefined ? String(value) : text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}
