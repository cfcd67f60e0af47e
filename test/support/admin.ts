import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

export interface AdminRun {
  status: number;
  stdout: string;
  stderr: string;
}

/**
 * The ops CLI (`npm run admin -- …`) as its own process, awaited. Never spawnSync: a test process
 * that serves the HTTP API or holds keep-alive sockets to it must not freeze while the CLI works
 * (a frozen client reused a socket the server had closed: "other side closed").
 */
export async function runAdmin(args: string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<AdminRun> {
  try {
    const { stdout, stderr } = await promisify(execFile)(tsx, ['bin/admin.ts', ...args], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'WARN', ...env },
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { status: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    return { status: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
