import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Longest files first, so two workers end together: on two cores the suite's time is the busier
 * worker's, and a long file started last is a tail the other worker waits out. Vitest orders by the
 * durations of the last run it cached, which a fresh clone (CI) does not have; there it would order
 * by file size, which says little (a 6 MB statement or a team of thousands is a short file). Then
 * the durations measured on this kind of machine (test/fileDurations.json, seconds; `npm run
 * test:durations` rewrites it from the last full run) decide, and a file not in it goes first.
 */
const measured: Record<string, number> = JSON.parse(readFileSync(path.join(import.meta.dirname, '..', 'fileDurations.json'), 'utf8'));

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const cache = this.ctx.cache;
    const secondsOf = (file: TestSpecification) => {
      const key = path.relative(this.ctx.config.root, file.moduleId);
      const cached = cache.getFileTestResults(`${file.project.name}:${key}`);
      return cached ? cached.duration / 1000 : (measured[key] ?? Number.POSITIVE_INFINITY);
    };
    return [...files].sort((a, b) => secondsOf(b) - secondsOf(a));
  }
}
