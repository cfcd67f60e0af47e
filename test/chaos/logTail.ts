/**
 * The in-process stack's log lines (Powertools' JSON, one a write) kept in memory instead of
 * printed: the last `size` of them, read when a violation is said. A run at WARN prints hundreds of
 * expected warnings (injected faults, redeliveries); a violation without them said nothing of why.
 * Every other write passes through.
 */
export function keepLogTail(size: number): { take(): string[] } {
  let lines: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (typeof chunk === 'string' && chunk.startsWith('{"level":')) {
        lines.push(chunk.trimEnd());
        if (lines.length > size * 2) lines = lines.slice(-size);
        return true;
      }
      return write(chunk, ...rest);
    }) as typeof stream.write;
  }
  return {
    take() {
      const taken = lines.slice(-size);
      lines = [];
      return taken;
    },
  };
}
