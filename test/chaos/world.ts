import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalService } from '../../lib/local/service.ts';
import type { DeadLetter } from '../../lib/local/eventBus.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { startReceiver, type Receiver } from '../support/webhookReceiver.ts';
import { resendPauseMs } from '../support/resend.ts';
import { injectFaults, type FaultKind, type FaultPlan } from './faults.ts';

/**
 * What the chaos harness works against: the whole local stack (`npm start`'s: HTTP adapter,
 * workflow runner, stream poller, event bus, DynamoDB Local), a webhook receiver every organization
 * registers, and a way to make organizations. Everything the workload does goes through HTTP; only
 * the checks read the table (the ledger has no endpoint of its own). `startWorld` runs the stack in
 * this process; test/chaos/crashingWorld.ts runs it as `npm start` and kills it.
 */
export interface World {
  receiver: Receiver;
  /** HTTP requests the workload made (resends included). */
  requestCount(): number;
  /** Requests sent again after a 503 or a dropped connection. */
  resentCount(): number;
  /**
   * One request as an integrator sends it. `once`: a request that no key makes safe to repeat (a
   * simulated wire) is not sent again; a dropped connection answers status 0, a 503 as itself.
   */
  request(method: string, path: string, apiKey: string | undefined, body?: unknown, options?: { once?: boolean }): Promise<Answer>;
  organization(label: string): Promise<ChaosOrganization>;
  /**
   * Work done in this process as an operator or a custody adapter would (an `admin` command, a
   * chain deposit notice): the stack's table and workflows are reachable while it runs.
   */
  operator<T>(work: () => Promise<T>): Promise<T>;
  /** The folder the stack's e-mails are written to (invitations), as the local mail stand-in writes them. */
  outbox: string;
  /**
   * The events the bus gave up on after its queue's deliveries (its dead-letter list), for a stack in
   * this process; none is readable from a stack run as `npm start`.
   */
  deadLetters?(): DeadLetter[];
  /** Times the stack was killed and came back (0 for a stack that is never killed). */
  killCount(): number;
  /** Faults injected at the adapters so far, by kind (none for a stack run as `npm start`). */
  faultsInjected(): Partial<Record<FaultKind, number>>;
  /** At each kill so far: the workflow executions running, the operations in flight and the workload's HTTP requests awaiting an answer. */
  inFlightAtKills(): InFlight[];
  /**
   * A stack that is killed only: `topUp` is called as each kill's pause begins (unless the last call
   * is still under way) with a reader of the operations in flight, and may send more, as often as it
   * reads too few (issue 29: about a thousand in flight at every kill). Answers the release, which
   * resolves once a call in progress has ended.
   */
  keepInFlight?(topUp: (inFlightNow: () => Promise<number>) => Promise<void>): () => Promise<void>;
  close(): Promise<void>;
}

export interface InFlight {
  executions: number;
  /** Operations accepted and not yet ended: those whose workflow runs, and batch items not yet started. */
  operations: number;
  requests: number;
}

export interface Answer {
  status: number;
  body: any;
  /** Attempts sent (more than one after a 503 or a dropped connection). */
  attempts: number;
  /** When the attempt that answered was sent, and when its answer came (ms since the epoch). */
  sentAt: number;
  answeredAt: number;
}

export interface ChaosOrganization {
  organizationId: string;
  /** The organization key now (rotations replace it). */
  apiKey: string;
  /** The URL registered at onboarding, to which webhook changes come back. */
  webhookUrl: string;
  /** Every signing secret the endpoint's registrations and rotations issued to it, oldest first: a delivery verifies with one of them. */
  webhookSecrets: string[];
  /** Off-ramp beneficiaries registered so far, by payout currency (registered on first use). */
  offRampBeneficiaries: Record<string, string>;
}

/** USDC every organization starts with (minor units, 6 decimals): enough that most payments fit, not all. */
export const openingBalance = 20_000n * 1_000_000n;

export interface Integrator {
  request: World['request'];
  requestCount(): number;
  resentCount(): number;
  /** Requests sent and not yet answered (resends of one request count once). */
  inFlight(): number;
  /** Requests answered, a 503 resent aside: the stack's progress as its integrators see it. */
  answeredCount(): number;
}

/**
 * Requests as a careful integrator sends them: a 503 (the contract's "retry with backoff") or a
 * dropped connection is sent again, the same bytes and key, after the answer's Retry-After and a
 * growing pause with jitter (test/support/resend.ts), for up to `patienceMs`;
 * what it then answers is the answer. Money-moving requests carry their idempotency key, so a
 * resend is safe; the workload relies on it across crashes.
 */
export function integrator(baseUrl: () => string, patienceMs: number): Integrator {
  let requests = 0;
  let resent = 0;
  let inFlight = 0;
  let answered = 0;
  async function request(method: string, path: string, apiKey: string | undefined, body?: unknown, options: { once?: boolean } = {}): Promise<Answer> {
    inFlight += 1;
    try {
      return await answerOf(method, path, apiKey, body, options.once ? 0 : patienceMs);
    } finally {
      inFlight -= 1;
    }
  }
  async function answerOf(method: string, path: string, apiKey: string | undefined, body: unknown, patience: number): Promise<Answer> {
    const deadline = Date.now() + patience;
    for (let attempt = 1; ; attempt += 1) {
      requests += 1;
      const sentAt = Date.now();
      let response: Response;
      try {
        response = await fetch(`${baseUrl()}${path}`, {
          method,
          headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        if (patience === 0) return { status: 0, body: { error: String((error as Error).cause ?? error) }, attempts: attempt, sentAt, answeredAt: Date.now() };
        const pause = resendPauseMs(attempt);
        if (Date.now() + pause > deadline) throw error;
        resent += 1;
        await sleep(pause);
        continue;
      }
      const text = await response.text();
      // After the Retry-After the 503 names, as the contract asks of an integrator.
      const pause = resendPauseMs(attempt, Number(response.headers.get('retry-after') ?? 0));
      if (response.status === 503 && Date.now() + pause <= deadline) {
        resent += 1;
        await sleep(pause);
        continue;
      }
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON: kept as text, and a check will say so.
      }
      answered += 1;
      return { status: response.status, body: parsed, attempts: attempt, sentAt, answeredAt: Date.now() };
    }
  }
  return { request, requestCount: () => requests, resentCount: () => resent, inFlight: () => inFlight, answeredCount: () => answered };
}

/** An organization as the harness needs it: onboarded (through the table, as the ops CLI does), limits lifted, funded, its webhook registered. */
export async function chaosOrganization(label: string, client: Integrator, receiver: Receiver, waitForWallet: (execution: string) => Promise<unknown>): Promise<ChaosOrganization> {
  const created = await onboardOrganization({ name: `Chaos ${label}`, kybStatus: 'approved' });
  await waitForWallet(created.walletExecution);
  const organizationId = created.organization.id;
  // The workload measures money, not the limiter: the buckets are out of reach (the limiter has tests of its own).
  await setRateLimits(organizationId, { burst: 100_000_000, perSecond: 1_000_000 });
  await creditDeposit({ organizationId, depositId: `chaos-opening-${organizationId}`, amount: openingBalance, rail: 'wire', memo: 'chaos opening balance' });
  const apiKey = created.apiKey.apiKey;
  const webhookUrl = `${receiver.url}/${organizationId}`;
  const endpoint = await client.request('PUT', '/webhooks/endpoint', apiKey, { url: webhookUrl });
  if (endpoint.status !== 200) throw new Error(`PUT /webhooks/endpoint answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`);
  return { organizationId, apiKey, webhookUrl, webhookSecrets: [endpoint.body.secret as string], offRampBeneficiaries: {} };
}

/** A mail folder of the chaos run's own (MAIL_OUTBOX_DIR, inherited by a stack run as `npm start`), so invitations are found among few. */
export function chaosOutbox(): string {
  const directory = mkdtempSync(join(tmpdir(), 'chaos-outbox-'));
  process.env.MAIL_OUTBOX_DIR = directory;
  return directory;
}

/** A seeded source of numbers in [0, 1) (mulberry32): the faults' rolls. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The stack in this process (as the bench runs it), never killed; with `faults`, faults injected
 * at its adapters (test/chaos/faults.ts) once the world is up, rolled from `seed`.
 */
export async function startWorld(options: { dynamoEndpoint?: string; faults?: FaultPlan; seed?: number } = {}): Promise<World> {
  const outbox = chaosOutbox();
  const service = await startLocalService({
    port: 0,
    dynamoEndpoint: options.dynamoEndpoint,
    tableName: `chaos-${randomBytes(6).toString('hex')}`,
    waitSeconds: 0,
  });
  const receiver = await startReceiver();
  const faults = options.faults ? injectFaults(options.faults, seededRandom(options.seed ?? 1), receiver) : undefined;
  // Resends meet injected faults too: more patience than a quiet stack needs.
  const client = integrator(() => service.url, faults ? 30_000 : 10_000);
  return {
    receiver,
    ...client,
    organization: (label) => chaosOrganization(label, client, receiver, (execution) => service.runner.waitFor(execution)),
    operator: (work) => work(),
    outbox,
    deadLetters: () => service.bus.deadLetters,
    killCount: () => 0,
    faultsInjected: () => faults?.injected() ?? {},
    inFlightAtKills: () => [],
    async close() {
      faults?.stop();
      await receiver.close();
      await service.stop();
      rmSync(outbox, { recursive: true, force: true });
    },
  };
}
