import { readFileSync } from 'node:fs';

/**
 * Whether a process of this machine still runs: it answers signal 0 (EPERM: it exists, another
 * user's) and is not a zombie. Used for what a process left behind: a local runner's executions, a
 * test run's databases.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !zombie(pid);
}

/**
 * A killed process nobody has reaped yet (where the init process does not reap, as in some
 * containers) still answers signal 0: it runs nothing, and what it left is free at once (a runner's
 * executions, rather than when their lease runs out). Linux's /proc says so; elsewhere it is taken as alive.
 */
function zombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return false;
  }
}
