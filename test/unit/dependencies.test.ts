import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies point one way (.dependency-cruiser.cjs): lib/ imports functions/, never the reverse,
 * the pure domain rules import nothing of the store, providers, platform or AWS, and no modules import
 * each other. A wrong import fails `npm test` with the rule's name.
 */
const root = path.resolve(import.meta.dirname, '../..');
const cruiser = path.join(root, 'node_modules', '.bin', 'depcruise');
const config = path.join(root, '.dependency-cruiser.cjs');

async function cruise(cwd: string, folders: string[]): Promise<{ status: number; output: string }> {
  try {
    const { stdout } = await promisify(execFile)(cruiser, [...folders, '--config', config, '--output-type', 'err'], { cwd });
    return { status: 0, output: stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { status: typeof failed.code === 'number' ? failed.code : 1, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

describe('dependency rules', () => {
  it('hold for the whole tree', async () => {
    const { status, output } = await cruise(root, ['functions', 'schemas', 'lib', 'bin', 'bench', 'clients', 'examples']);
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  }, 60_000);

  it('fail on a planted wrong import, naming the rule', async () => {
    const { status, output } = await cruise(path.join(root, 'test/fixtures/dependencies'), ['functions', 'lib']);
    expect(status).not.toBe(0);
    expect(output).toContain('runtime-never-imports-lib: functions/platform/planted.ts → lib/local/runtime.ts');
    expect(output).toContain('domain-rules-are-pure: functions/domain/money.ts → functions/store/client.ts');
    expect(output).toMatch(/no-circular: functions\/(domain\/money|store\/client)\.ts →/);
    expect(output).toContain('providers-are-ports: functions/providers/payout.ts → functions/store/client.ts');
    expect(output).toContain('simulators-only-from-wiring: functions/operations/planted.ts → functions/simulators/payout.ts');
  }, 60_000);
});
