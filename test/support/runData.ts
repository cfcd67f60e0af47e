import { accessSync, constants, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { processAlive } from '../../lib/local/processAlive.ts';

/**
 * A directory for this process's data under `root`, named `<prefix><pid>-<random>`. A run killed
 * before its clean-up leaves its directories behind (in /dev/shm, memory until the next reboot), so
 * those of the same prefix whose process is gone are removed first; those of a run still going (two
 * runs may share the machine) are left.
 */
export function runDataDir(root: string, prefix: string): string {
  for (const name of readdirSync(root)) {
    const owner = name.startsWith(prefix) ? /^(\d+)-/.exec(name.slice(prefix.length))?.[1] : undefined;
    if (owner && !processAlive(Number(owner))) rmSync(path.join(root, name), { recursive: true, force: true });
  }
  return mkdtempSync(path.join(root, `${prefix}${process.pid}-`));
}

/** Memory (/dev/shm) where the machine has it and it can be written, else the temporary directory. */
export function memoryRoot(): string {
  try {
    accessSync('/dev/shm', constants.W_OK);
    return '/dev/shm';
  } catch {
    return tmpdir();
  }
}
