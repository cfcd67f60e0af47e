/**
 * Waits on a condition with a deadline, never a fixed sleep: `probe` answers the value once the
 * condition holds and undefined until then; past the deadline the test fails naming `what`.
 */
export async function eventually<T>(probe: () => Promise<T | undefined>, options: { what: string; timeoutMs?: number; intervalMs?: number }): Promise<T> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${options.what}`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 50));
  }
}
