import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import type { LocalService } from '../../lib/local/service.ts';
import type { SmokeReport } from '../../lib/ops/smoke.ts';
import { runAdmin } from '../support/admin.ts';
import { startTestService } from '../support/service.ts';
import { startReceiver, type Receiver } from '../support/webhookReceiver.ts';

/**
 * `npm run admin -- smoke`, the walk a deployer runs after `cdk deploy` (docs/deployment.md), run as
 * its own process against the local stack: the service on its URL, the CLI on its store, a real
 * webhook receiver. It must pass every step the local stack has and say which it skipped and why.
 */
let service: LocalService;
let receiver: Receiver;

beforeAll(async () => {
  service = await startTestService();
  receiver = await startReceiver();
  receiver.respond = () => ({ status: 204 });
});

afterAll(async () => {
  await receiver?.close();
  await service?.stop();
});

const cliEnv = () => ({ DYNAMODB_ENDPOINT: service.dynamoEndpoint, TABLE_NAME: service.tableName });

describe('admin smoke', () => {
  it('walks the local stack: health, an organization, its key, a payment to RECONCILED, its webhook and history', async () => {
    const run = await runAdmin(['smoke', '--url', service.url, '--webhook-url', `${receiver.url}/hooks`, '--timeout', '60'], cliEnv(), 120_000);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`smoke walk of ${service.url} (simulated)`);
    for (const step of ['health', 'organization', 'key', 'webhook', 'payment', 'delivery', 'history']) {
      expect(lines.some((line) => line.startsWith(`  ✓ ${step.padEnd(12)} `)), `${step} passed\n${run.stdout}`).toBe(true);
    }
    // What the local stack does not have is said, not hidden.
    expect(lines).toContain('  - edge         skipped: simulated has no edge: its public address is the HTTP API itself');
    expect(lines).toContain('  - alarm        skipped: the local stack has no alarms');
    expect(lines.at(-2)).toBe('passed: 7 passed, 0 failed, 2 skipped');
    // The payment's path, as admin ops history prints it, and the delivery the receiver really got.
    expect(run.stdout).toMatch(/✓ payment +smoke-[0-9a-f]{12}: 10\.00 USDC to \w+, .*RECONCILED/);
    const history = run.stdout.slice(run.stdout.indexOf('✓ history'));
    expect(history).toContain('workflow payment, execution');
    expect(history).toMatch(/RECONCILED/);
    const reconciled = receiver.deliveries.filter((delivery) => JSON.parse(delivery.body).type === 'transaction.reconciled');
    expect(reconciled).toHaveLength(1);
    expect(run.stdout).toContain(`✓ delivery     transaction.reconciled ${reconciled[0]!.id} delivered: 204`);
  }, 180_000);

  it('fails, exit 1, on a stage that does not answer, saying what to look at and skipping what needed it', async () => {
    // A port nothing listens on: found free, and closed again.
    const closed = await freePort();
    const run = await runAdmin(['smoke', '--url', `http://127.0.0.1:${closed}`, '--json'], cliEnv(), 120_000);
    expect(run.status, run.stderr).toBe(1);
    const report = JSON.parse(run.stdout) as SmokeReport;
    expect(report.passed).toBe(false);
    const health = report.steps.find((step) => step.step === 'health')!;
    expect(health).toMatchObject({ outcome: 'failed', lookAt: expect.stringContaining('public address') });
    for (const step of ['organization', 'key', 'payment', 'history']) {
      expect(report.steps.find((entry) => entry.step === step), step).toMatchObject({ outcome: 'skipped', detail: 'the service did not answer GET /health' });
    }
  }, 180_000);
});
