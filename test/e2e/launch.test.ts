import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/local/dynamodbLocal.ts';
import { runAdmin } from '../support/admin.ts';
import { until } from '../support/eventually.ts';

/**
 * `npm start` as a new user runs it (bin/local.ts as its own process, spawning its own
 * DynamoDB Local), the ops CLI beside it, and Ctrl-C stopping everything.
 */
const root = path.resolve(import.meta.dirname, '../..');
const tsx = path.join(root, 'node_modules', '.bin', 'tsx');

let child: ChildProcess;
let output = '';
let baseUrl: string;
let demoKey: string;
let dynamoPort: number;
const environment = () => ({
  ...process.env,
  DYNAMODB_ENDPOINT: '',
  TABLE_NAME: 'payments',
  LOG_LEVEL: 'INFO',
});

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

beforeAll(async () => {
  const port = await freePort();
  dynamoPort = await freePort();
  const env: NodeJS.ProcessEnv = { ...environment(), PORT: String(port), DYNAMODB_LOCAL_PORT: String(dynamoPort) };
  delete env.DYNAMODB_ENDPOINT;
  child = spawn(tsx, ['bin/local.ts'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await until(async () => output, (text) => /Demo API key:\s+(\S+)/.test(text) || child!.exitCode !== null, { what: 'npm start to come up', timeoutMs: 45_000, intervalMs: 100 });
  if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
  baseUrl = /Base URL:\s+(\S+)/.exec(output)![1]!;
  demoKey = /Demo API key:\s+(\S+)/.exec(output)![1]!;
}, 60_000);

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

describe('npm start', () => {
  it('prints a base URL and a demo key that works at once', async () => {
    expect(baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const me = await fetch(`${baseUrl}/me`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ name: 'Demo Organization', role: 'owner' });
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    // Opened with 10,000 USDC, so a new user can quote and pay at once.
    const balance = await fetch(`${baseUrl}/balance`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(await balance.json()).toMatchObject({ currency: 'USDC', scale: 6, available: '10000000000', total: '10000000000' });
    // KYB approved: the KYB-gated read answers.
    const gated = await fetch(`${baseUrl}/treasury/deposit-instructions`, { headers: { authorization: `Bearer ${demoKey}` } });
    expect(gated.status).toBe(200);
  });

  it('the ops CLI beside it creates an organization whose key works, and approves KYB', async () => {
    const admin = (...args: string[]) => runAdmin(args, { ...environment(), DYNAMODB_ENDPOINT: `http://127.0.0.1:${dynamoPort}` });
    const created = await admin('org', 'create', '--name', 'Acme Ltd', '--kyb', 'pending');
    expect(created.status, created.stderr).toBe(0);
    const lines = created.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const organization = JSON.parse(lines[0]!);
    expect(organization).toMatchObject({ organizationId: expect.stringMatching(/^org_/), apiKey: expect.stringMatching(/^sk_sim_/), homeWalletId: expect.stringMatching(/^wal_/) });
    const headers = { authorization: `Bearer ${organization.apiKey}` };
    expect(await (await fetch(`${baseUrl}/me`, { headers })).json()).toMatchObject({ id: organization.organizationId, name: 'Acme Ltd', role: 'owner' });
    expect((await fetch(`${baseUrl}/treasury/deposit-instructions`, { headers })).status).toBe(403);

    const approved = await admin('org', 'kyb', organization.organizationId, 'approved');
    expect(approved.status, approved.stderr).toBe(0);
    expect(JSON.parse(approved.stdout)).toEqual({ organizationId: organization.organizationId, kybStatus: 'approved' });
    expect((await fetch(`${baseUrl}/treasury/deposit-instructions`, { headers })).status).toBe(200);

    const wrong = await admin('org', 'kyb', organization.organizationId, 'maybe');
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toContain('approved or pending');
  });

  it('logs one structured line per request, with no key, Authorization header or body in it', async () => {
    const forged = `${demoKey.slice(0, -3)}xyz`;
    await fetch(`${baseUrl}/me`, { headers: { authorization: `Bearer ${forged}` } });
    await fetch(`${baseUrl}/quotes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${demoKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ corridor: { to: 'SECRET-BODY' } }),
    });
    // The request lines are written once each answer is sent: wait for the last one.
    await until(async () => output, (text) => text.includes('"route":"POST /quotes"'), { what: 'the POST /quotes request line', timeoutMs: 5_000, intervalMs: 20 });
    const entries = output
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const requests = entries.filter((entry) => entry.message === 'request');
    expect(requests.length).toBeGreaterThanOrEqual(4);
    expect(requests).toContainEqual(expect.objectContaining({ route: 'GET /me', status: 401 }));
    // The key item's read and the bucket's charge (decision 076); the refused body costs nothing more.
    expect(requests).toContainEqual(expect.objectContaining({ route: 'POST /quotes', status: 400, dynamoCalls: 2 }));
    const logged = JSON.stringify(entries);
    expect(logged).not.toContain(demoKey.slice(-20));
    expect(logged).not.toContain('xyz');
    expect(logged.toLowerCase()).not.toContain('bearer');
    expect(logged).not.toContain('SECRET-BODY');
  });

  it('Ctrl-C stops the service and the DynamoDB Local it started', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(await portOpen(dynamoPort)).toBe(false);
    await expect(fetch(`${baseUrl}/health`)).rejects.toThrow();
  });
});
