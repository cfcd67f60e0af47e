import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { until } from '../support/eventually.ts';

/**
 * examples/ as a reader runs them: `npm start` (bin/local.ts as its own process, with its own
 * DynamoDB Local), then each example with the BASE_URL and demo API key it printed, as a process of
 * its own. One stack for all of them; each must exit 0 and say what it did.
 */
const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

let stack: ChildProcess;
let stackOutput = '';
let baseUrl: string;
let apiKey: string;

function runExample(file: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(tsx, [path.join('examples', file)], {
      cwd: root,
      env: { ...process.env, BASE_URL: baseUrl, API_KEY: apiKey },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, output }));
  });
}

beforeAll(async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(await freePort()), DYNAMODB_LOCAL_PORT: String(await freePort()), TABLE_NAME: 'payments' };
  delete env.DYNAMODB_ENDPOINT;
  stack = spawn(tsx, ['bin/local.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  stack.stdout!.on('data', (chunk: Buffer) => (stackOutput += chunk.toString()));
  stack.stderr!.on('data', (chunk: Buffer) => (stackOutput += chunk.toString()));
  await until(async () => stackOutput, (text) => /Demo API key:\s+(\S+)/.test(text) || stack.exitCode !== null, { what: 'npm start to come up', timeoutMs: 45_000, intervalMs: 100 });
  if (stack.exitCode !== null) throw new Error(`npm start exited:\n${stackOutput}`);
  baseUrl = /Base URL:\s+(\S+)/.exec(stackOutput)![1]!;
  apiKey = /Demo API key:\s+(\S+)/.exec(stackOutput)![1]!;
}, 60_000);

afterAll(async () => {
  if (!stack || stack.exitCode !== null) return;
  const exited = new Promise((resolve) => stack.once('exit', resolve));
  stack.kill('SIGINT');
  await exited;
});

describe('examples/, against npm start', () => {
  let paymentId = '';

  it('send-payment.ts quotes, pays and follows the payment to RECONCILED', async () => {
    const { code, output } = await runExample('send-payment.ts');
    expect(code, output).toBe(0);
    expect(output).toMatch(/^quote q_\S+: 250\.00 USDC pays \d+/m);
    expect(output).toContain('states: INITIATED → QUOTED → FUNDED → ROUTING → SETTLING → PAID_OUT → RECONCILED');
    paymentId = /^payment (\S+) RECONCILED$/m.exec(output)![1]!;
  }, 60_000);

  it('pay-batch.ts pays three items in one batch and reads its counts', async () => {
    const { code, output } = await runExample('pay-batch.ts');
    expect(code, output).toBe(0);
    expect(output).toMatch(/^batch \S+: ACCEPTED, 3 items on \S+$/m);
    expect(output).toMatch(/^batch \S+ COMPLETED: RECONCILED 3; total 295750000 \(scale 6\) USDC$/m);
  }, 60_000);

  it('receive-webhooks.ts verifies the signed deliveries of its payment', async () => {
    const { code, output } = await runExample('receive-webhooks.ts');
    expect(code, output).toBe(0);
    expect(output).toMatch(/^verified evt_\S+: transaction\.paid_out$/m);
    expect(output).toMatch(/^verified evt_\S+: transaction\.reconciled$/m);
    expect(output).not.toContain('refused a delivery');
    // The example deletes the endpoint it registered.
    const endpoint = await fetch(`${baseUrl}/webhooks/endpoint`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(endpoint.status).toBe(404);
  }, 60_000);

  it('list-transactions.ts pages through every transaction, newest first', async () => {
    const { code, output } = await runExample('list-transactions.ts');
    expect(code, output).toBe(0);
    // The three examples above sent 1 + 3 + 1 payments; their ids are listed once each.
    expect(output).toMatch(/^5 transactions$/m);
    expect(output.split('\n').filter((line) => line.includes(paymentId))).toHaveLength(1);
  }, 60_000);

  it('an example without BASE_URL and API_KEY says what to set and exits non-zero', async () => {
    const child = spawn(tsx, ['examples/list-transactions.ts'], { cwd: root, env: { ...process.env, BASE_URL: '', API_KEY: '' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(output).toContain('Set BASE_URL and API_KEY');
  }, 30_000);
});
