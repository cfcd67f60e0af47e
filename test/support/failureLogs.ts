import { beforeEach } from 'vitest';

/**
 * The service's warnings and errors, shown only for a test that fails. A 503 or a 500 in a test says
 * nothing of its cause on its own (a deadline, a contended bucket, a throttled table); the log line
 * the service wrote does, and a CI run is the one place it cannot be reproduced afterwards. Lines of
 * a passing test are dropped, so the deliberate warnings of the hostile-input tests stay out of the log.
 *
 * The logger (functions/platform/logger.ts, Powertools) writes WARN and ERROR lines as JSON to stderr;
 * only those lines are held back, anything else on stderr passes through.
 */
const kept: string[] = [];
const keptMax = 200;
let dropped = 0;

const write = process.stderr.write.bind(process.stderr);
process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
  const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
  if (!/^\{"level":"(WARN|ERROR|CRITICAL)"/.test(text)) return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  kept.push(text.trimEnd());
  if (kept.length > keptMax) {
    kept.shift();
    dropped += 1;
  }
  const callback = rest.find((value) => typeof value === 'function') as (() => void) | undefined;
  callback?.();
  return true;
}) as typeof process.stderr.write;

/** The service's WARN and ERROR lines of the running test so far (the last 200): what a test asserts the person on call reads. */
export function loggedThisTest(): readonly string[] {
  return [...kept];
}

beforeEach((context) => {
  kept.length = 0;
  dropped = 0;
  context.onTestFailed(() => {
    if (kept.length === 0) return;
    const header = `the service's warnings and errors during "${context.task.name}"${dropped ? ` (the last ${keptMax}; ${dropped} earlier dropped)` : ''}:`;
    write(`${header}\n${kept.join('\n')}\n`);
  });
});
