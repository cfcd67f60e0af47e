import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * Dependencies point one way (.dependency-cruiser.cjs): lib/ imports functions/, never the reverse,
 * each row of the layer table in docs/architecture.md imports only the rows it names, the pure domain
 * rules import nothing of the store, providers, platform or AWS, and no modules import each other. A
 * wrong import fails `npm test` with the rule's name.
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

  /**
   * One wrong import a row of the layer table forbids, planted in a tree of its own: each must fail
   * with its rule's name, so a rule that stops matching (a renamed folder, a loosened pattern) is seen.
   */
  const planted: { rule: string; from: string; to: string }[] = [
    { rule: 'api-calls-use-cases', from: 'functions/api/payments/createThing.ts', to: 'functions/providers/payout.ts' },
    { rule: 'api-calls-use-cases', from: 'functions/api/payments/readThing.ts', to: 'functions/store/ledger.ts' },
    { rule: 'api-calls-use-cases', from: 'functions/api/payments/startThing.ts', to: 'functions/tasks/payment/paymentStep.ts' },
    { rule: 'tasks-run-operation-steps', from: 'functions/tasks/payment/step.ts', to: 'functions/store/client.ts' },
    { rule: 'event-targets-call-operations', from: 'functions/events/mailer.ts', to: 'functions/providers/mail.ts' },
    { rule: 'event-targets-call-operations', from: 'functions/scheduled/sweeper.ts', to: 'functions/api/endpoint.ts' },
    { rule: 'operations-below-entry-points', from: 'functions/operations/payment/intake.ts', to: 'functions/api/endpoint.ts' },
    { rule: 'kit-knows-no-operation', from: 'functions/operations/kit/progress.ts', to: 'functions/operations/payment/view.ts' },
    { rule: 'kit-knows-no-operation', from: 'functions/operations/kit/call.ts', to: 'functions/providers/chain.ts' },
    { rule: 'store-below-operations', from: 'functions/store/wallets.ts', to: 'functions/providers/custody.ts' },
    { rule: 'store-below-operations', from: 'functions/store/quotes.ts', to: 'functions/operations/quote/quoting.ts' },
    { rule: 'platform-below-store', from: 'functions/platform/endpoint.ts', to: 'functions/store/access.ts' },
    { rule: 'contract-is-data', from: 'functions/contract/openapi.ts', to: 'functions/providers/onRamp.ts' },
    { rule: 'contract-is-data', from: 'functions/contract/routes.ts', to: 'functions/platform/config.ts' },
  ];

  it('fail on a planted wrong import for every row of the layer table', async () => {
    const tree = mkdtempSync(path.join(tmpdir(), 'layers-'));
    try {
      const write = (file: string, text: string) => {
        mkdirSync(path.dirname(path.join(tree, file)), { recursive: true });
        writeFileSync(path.join(tree, file), text);
      };
      write('tsconfig.json', JSON.stringify({ compilerOptions: { allowImportingTsExtensions: true, noEmit: true, module: 'ESNext', moduleResolution: 'bundler' } }));
      for (const { from, to } of planted) {
        write(to, 'export const target = 1;\n');
        write(from, `import { target } from '${path.relative(path.dirname(from), to)}';\nexport const planted = target;\n`);
      }
      const { status, output } = await cruise(tree, ['functions']);
      expect(status).not.toBe(0);
      for (const { rule, from, to } of planted) expect(output).toContain(`${rule}: ${from} → ${to}`);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  }, 60_000);
});
