import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startLocalService, type LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { creditDeposit } from '#store/ledger.ts';
import { setRateLimits } from '#store/organizations.ts';
import { startReceiver, type Receiver } from '../support/webhookReceiver.ts';

/**
 * What the chaos harness works against: the whole local stack (`npm start`'s: HTTP adapter,
 * workflow runner, stream poller, event bus, DynamoDB Local) in this process, a webhook receiver
 * every organization registers, and a way to make organizations. Everything the workload does goes
 * through HTTP; only the checks read the table (the ledger has no endpoint of its own).
 */
export interface World {
  service: LocalService;
  receiver: Receiver;
  /** HTTP requests the workload made (resends included). */
  requestCount(): number;
  /** Requests sent again after a 503 or a dropped connection. */
  resentCount(): number;
  request(method: string, path: string, apiKey: string | undefined, body?: unknown): Promise<Answer>;
  organization(label: string): Promise<ChaosOrganization>;
  close(): Promise<void>;
}

export interface Answer {
  status: number;
  body: any;
}

export interface ChaosOrganization {
  organizationId: string;
  /** The organization key now (rotations replace it). */
  apiKey: string;
  webhookSecret: string;
}

/** USDC every organization starts with (minor units, 6 decimals): enough that most payments fit, not all. */
const maxAttempts = 8;

export const openingBalance = 20_000n * 1_000_000n;

export async function startWorld(options: { dynamoEndpoint?: string } = {}): Promise<World> {
  const service = await startLocalService({
    port: 0,
    dynamoEndpoint: options.dynamoEndpoint,
    tableName: `chaos-${randomBytes(6).toString('hex')}`,
    waitSeconds: 0,
  });
  const receiver = await startReceiver();
  let requests = 0;
  let resent = 0;

  /**
   * One request as a careful integrator sends it: a 503 (the contract's "retry") or a dropped
   * connection is sent again, the same bytes and key, after a growing pause; what it then answers
   * is the answer. Money-moving requests carry their idempotency key, so a resend is safe.
   */
  async function request(method: string, path: string, apiKey: string | undefined, body?: unknown): Promise<Answer> {
    for (let attempt = 1; ; attempt += 1) {
      requests += 1;
      let response: Response;
      try {
        response = await fetch(`${service.url}${path}`, {
          method,
          headers: { ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        if (attempt >= maxAttempts) throw error;
        resent += 1;
        await sleep(attempt * 100);
        continue;
      }
      const text = await response.text();
      if (response.status === 503 && attempt < maxAttempts) {
        resent += 1;
        await sleep(attempt * 100);
        continue;
      }
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // Not JSON: kept as text, and a check will say so.
      }
      return { status: response.status, body: parsed };
    }
  }

  return {
    service,
    receiver,
    requestCount: () => requests,
    resentCount: () => resent,
    request,
    async organization(label) {
      const created = await onboardOrganization({ name: `Chaos ${label}`, kybStatus: 'approved' });
      await service.runner.waitFor(created.walletExecution);
      const organizationId = created.organization.id;
      // The workload measures money, not the limiter: the buckets are out of reach (the limiter has tests of its own).
      await setRateLimits(organizationId, { burst: 100_000_000, perSecond: 1_000_000 });
      await creditDeposit({ organizationId, depositId: `chaos-opening-${organizationId}`, amount: openingBalance, rail: 'wire', memo: 'chaos opening balance' });
      const apiKey = created.apiKey.apiKey;
      const endpoint = await request('PUT', '/webhooks/endpoint', apiKey, { url: `${receiver.url}/${organizationId}` });
      if (endpoint.status !== 200) throw new Error(`PUT /webhooks/endpoint answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`);
      return { organizationId, apiKey, webhookSecret: endpoint.body.secret as string };
    },
    async close() {
      await receiver.close();
      await service.stop();
    },
  };
}
