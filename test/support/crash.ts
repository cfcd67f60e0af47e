import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { reloadConfig } from '#platform/config.ts';
import { resetDynamoClient } from '#store/client.ts';
import { until } from './eventually.ts';

/**
 * `npm start` as a real process on its own table, for the crash tests: launched, SIGKILLed (no
 * shutdown code runs, as in a power cut) and launched again on the same store.
 */
const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

export interface CrashableService {
  tableName: string;
  /** Starts bin/local.ts on `port` with the service's extra variables (slow the flow so a kill lands mid-way), and this launch's own. */
  launch(port: number, launchEnv?: Record<string, string>): Promise<{ child: ChildProcess; url: string; apiKey: string }>;
  /** SIGKILL to the whole process group (tsx runs the service in a child process). */
  killHard(child: ChildProcess): Promise<void>;
  /** The last 64 KB the launched process wrote (stdout and stderr): what a process that died on its own said. */
  outputOf(child: ChildProcess): string;
  /** Kills whatever is still running (afterAll). */
  killAll(): Promise<void>;
  /** Points this test process's store at the service's table, to read what it wrote. */
  readItsTable(): void;
}

/** `logFile`: every launched process's output is appended there too, kept after it is killed (the tail in memory goes with it). */
export function crashableService(label: string, env: Record<string, string>, options: { logFile?: string } = {}): CrashableService {
  const tableName = `${label}-${randomBytes(6).toString('hex')}`;
  const children: ChildProcess[] = [];
  const outputs = new WeakMap<ChildProcess, () => string>();

  async function killHard(child: ChildProcess): Promise<void> {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
    if (child.exitCode === null && child.signalCode === null) await exited;
  }

  return {
    tableName,
    killHard,
    async launch(port, launchEnv = {}) {
      const child = spawn(tsx, ['bin/local.ts'], {
        cwd: root,
        env: {
          ...process.env,
          PORT: String(port),
          DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
          TABLE_NAME: tableName,
          LOG_LEVEL: 'WARN',
          // The dead process's leases are short, so the restart takes its executions over quickly.
          WORKFLOW_LEASE_SECONDS: '2',
          ...env,
          ...launchEnv,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group: the kill must take tsx and the service it runs.
        detached: true,
      });
      children.push(child);
      // The tail only: a long run (the chaos kills phase) keeps one process up for minutes.
      let output = '';
      const keep = (chunk: Buffer) => {
        output = (output + chunk.toString()).slice(-64_000);
        if (options.logFile) appendFileSync(options.logFile, chunk);
      };
      child.stdout!.on('data', keep);
      child.stderr!.on('data', keep);
      await until(async () => output, (text) => /Demo API key:\s+(\S+)/.test(text) || child.exitCode !== null, { what: 'npm start to come up', timeoutMs: 120_000, intervalMs: 100 });
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      outputs.set(child, () => output);
      return { child, url: /Base URL:\s+(\S+)/.exec(output)![1]!, apiKey: /Demo API key:\s+(\S+)/.exec(output)![1]! };
    },
    outputOf: (child) => outputs.get(child)?.() ?? '',
    async killAll() {
      for (const child of children) await killHard(child);
    },
    readItsTable() {
      process.env.TABLE_NAME = tableName;
      reloadConfig();
      resetDynamoClient();
    },
  };
}
