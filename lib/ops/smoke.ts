import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { parseDecimal } from '#domain/money.ts';
import type { ServiceEnvironment } from './cliTarget.ts';

/**
 * `admin smoke`: the walk a deployer runs right after `cdk deploy` (docs/deployment.md), and `npm test`
 * runs against the local stack (test/e2e/smoke.test.ts). Each step says whether it passed, failed or
 * was skipped and why, and for a failure what to look at; one failed step skips what needs it.
 *
 *   health        GET /health through the public address
 *   edge          the execute-api address refuses a request that did not come through CloudFront (AWS, with an edge)
 *   organization  a new organization, KYB approved (on simulated with an opening deposit), through the ops store
 *   key           GET /me with its key: the API reads the table
 *   webhook       (--webhook-url) its endpoint registered before the payment
 *   payment       a quote and a payment from the sandbox prefill, followed until it ends RECONCILED
 *   delivery      (--webhook-url) the payment's transaction.reconciled event delivered to the receiver (a 2xx)
 *   history       `admin ops history` of that payment: the workflow's path
 *   alarm         (AWS) a test notification through the alarm topic, and someone subscribed to it
 * Production gets the first two and the alarm only: the walk opens no organization and moves no money there.
 */
export type StepOutcome = 'passed' | 'failed' | 'skipped';

export interface SmokeStep {
  step: string;
  outcome: StepOutcome;
  detail: string;
  /** For a failure: where to look. */
  lookAt?: string;
}

export interface SmokeReport {
  target: string;
  environment: ServiceEnvironment;
  steps: SmokeStep[];
  passed: boolean;
}

/** What the walk needs from where it runs: the ops store and workflow engine are already wired by the caller. */
export interface SmokeTarget {
  environment: ServiceEnvironment;
  /** The public address (CloudFront's on a stage with an edge; the local service's URL). */
  publicUrl: string;
  /** The execute-api address, when it differs from the public one: it must refuse requests. */
  originUrl?: string;
  webhookUrl?: string;
  /** How long the payment and its delivery may take. */
  timeoutMs: number;
  /** Opens the organization through the ops store (and waits for its wallet where the CLI runs the workflow). */
  openOrganization: (input: { name: string; openingDeposit?: bigint }) => Promise<{ organizationId: string; apiKey: string }>;
  /** `admin ops history` of an operation, as text; undefined when there is none. */
  history: (organizationId: string, operationId: string) => Promise<{ text: string; executionFound: boolean; status: string } | undefined>;
  /** AWS only: sets the test alarm to ALARM and says who is subscribed. */
  testAlarm?: () => Promise<{ detail: string; subscribed: number }>;
}

const fetchTimeoutMs = 15_000;

async function request(url: string, init: RequestInit & { apiKey?: string; json?: unknown } = {}): Promise<{ status: number; body: any; text: string }> {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string> | undefined) };
  if (init.apiKey) headers.authorization = `Bearer ${init.apiKey}`;
  let body = init.body;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  }
  const response = await fetch(url, { ...init, headers, body, signal: AbortSignal.timeout(fetchTimeoutMs) });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON (a WAF or CloudFront page): kept as text for the report.
  }
  return { status: response.status, body: parsed, text };
}

const short = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value) ?? '').slice(0, 300);

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, deadline: number, everyMs = 1000): Promise<T> {
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() >= deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

const Prefill = z.object({
  payouts: z.array(z.object({ corridor: z.object({ to: z.string(), destinationCountry: z.string() }), beneficiary: z.record(z.string(), z.unknown()), recipientReference: z.string() })).min(1),
});

export async function smokeWalk(target: SmokeTarget): Promise<SmokeReport> {
  const base = target.publicUrl.replace(/\/+$/, '');
  const steps: SmokeStep[] = [];
  const record = (entry: SmokeStep): void => {
    steps.push(entry);
  };
  const pass = (step: string, detail: string) => record({ step, outcome: 'passed', detail });
  const fail = (step: string, detail: string, lookAt: string) => record({ step, outcome: 'failed', detail, lookAt });
  const skip = (step: string, detail: string) => record({ step, outcome: 'skipped', detail });
  /** Runs a step; an exception is its failure, with `lookAt`. */
  const attempt = async (step: string, lookAt: string, body: () => Promise<void>) => {
    try {
      await body();
    } catch (error) {
      fail(step, error instanceof Error ? error.message : String(error), lookAt);
    }
  };
  const failed = (step: string) => steps.some((entry) => entry.step === step && entry.outcome !== 'passed');

  await attempt('health', `Is ${base} the stage's public address (output PublicUrl of the API stack; ApiUrl without an edge)?`, async () => {
    const health = await request(`${base}/health`);
    if (health.status === 200 && health.body?.status === 'ok') return pass('health', `200 ok, version ${health.body.version}`);
    fail('health', `GET /health answered ${health.status}: ${short(health.body)}`, health.status === 403
      ? 'A 403 here is the edge refusing: WAF (its log group aws-waf-logs-…) or the origin header (ORIGIN_SECRET_ARN of the functions, the OriginSecret of the API stack).'
      : 'The health function\'s log group (/aws/lambda/…getHealth…) and the API stage\'s access logs.');
  });

  if (target.originUrl) {
    const origin = target.originUrl.replace(/\/+$/, '');
    await attempt('edge', 'The API stack\'s OriginSecret and the ORIGIN_SECRET_ARN of the endpoint functions.', async () => {
      const around = await request(`${origin}/health`);
      if (around.status === 403 && around.body?.error === 'forbidden') return pass('edge', `${origin} refuses what did not come through CloudFront (403 forbidden)`);
      fail('edge', `GET ${origin}/health answered ${around.status}, not 403: the execute-api address serves around the WAF`,
        'The endpoint functions\' ORIGIN_SECRET_ARN and their log groups (functions/platform/edgeOrigin.ts).');
    });
  } else {
    skip('edge', target.environment === 'simulated' ? 'simulated has no edge: its public address is the HTTP API itself' : 'no execute-api address to try');
  }

  if (target.testAlarm === undefined) skip('alarm', 'the local stack has no alarms');

  if (target.environment === 'production') {
    for (const step of ['organization', 'key', 'webhook', 'payment', 'delivery', 'history']) skip(step, 'production: the walk opens no organization and moves no money');
  } else if (failed('health')) {
    for (const step of ['organization', 'key', 'webhook', 'payment', 'delivery', 'history']) skip(step, 'the service did not answer GET /health');
  } else {
    await walkPayment(target, base, { pass, fail, skip, attempt, failed });
  }

  if (target.testAlarm) {
    await attempt('alarm', 'The alarm topic payments-<stage>-alarms: its access policy and its subscriptions (docs/deployment.md, section 8).', async () => {
      const { detail, subscribed } = await target.testAlarm!();
      if (subscribed === 0) return fail('alarm', `${detail}; nobody is subscribed to the topic: no alarm reaches anyone`, 'Subscribe the on-call address to the topic (docs/deployment.md, section 8), then confirm the subscription.');
      pass('alarm', `${detail}; ${subscribed} confirmed subscription${subscribed === 1 ? '' : 's'}: check that it arrived`);
    });
  }

  const order = ['health', 'edge', 'organization', 'key', 'webhook', 'payment', 'delivery', 'history', 'alarm'];
  steps.sort((a, b) => order.indexOf(a.step) - order.indexOf(b.step));
  return { target: base, environment: target.environment, steps, passed: steps.every((step) => step.outcome !== 'failed') };
}

interface Recorder {
  pass: (step: string, detail: string) => void;
  fail: (step: string, detail: string, lookAt: string) => void;
  skip: (step: string, detail: string) => void;
  attempt: (step: string, lookAt: string, body: () => Promise<void>) => Promise<void>;
  failed: (step: string) => boolean;
}

async function walkPayment(target: SmokeTarget, base: string, { pass, fail, skip, attempt, failed }: Recorder): Promise<void> {
  const funded = target.environment === 'simulated';
  let organization: { organizationId: string; apiKey: string } | undefined;
  await attempt('organization', 'The ops CLI\'s target: TABLE_NAME and AWS credentials (or DYNAMODB_ENDPOINT for the local stack).', async () => {
    organization = await target.openOrganization({
      name: `Smoke test ${new Date().toISOString()}`,
      ...(funded ? { openingDeposit: parseDecimal('100', 6) } : {}),
    });
    pass('organization', `${organization.organizationId}, KYB approved${funded ? ', opened with 100 USDC (simulated deposit)' : ''}`);
  });
  const later = ['key', 'webhook', 'payment', 'delivery', 'history'];
  if (!organization) {
    for (const step of later) skip(step, 'no organization was opened');
    return;
  }
  const { organizationId, apiKey } = organization;

  await attempt('key', 'The API functions\' TABLE_NAME and their grants on the table.', async () => {
    const me = await request(`${base}/me`, { apiKey });
    if (me.status === 200 && me.body?.id === organizationId) return pass('key', 'GET /me answers the new organization');
    fail('key', `GET /me answered ${me.status}: ${short(me.body)}`, 'The getMe function\'s log group; is the CLI on the same table as the stage (TABLE_NAME)?');
  });
  if (failed('key')) {
    for (const step of later.slice(1)) skip(step, 'the API did not accept the new key');
    return;
  }

  const capabilities = await request(`${base}/capabilities`);
  const payments = (capabilities.body?.features as { feature: string; status: string; reason?: string }[] | undefined)?.find((feature) => feature.feature === 'payments');
  const corridors = (capabilities.body?.corridors as unknown[] | undefined) ?? [];
  if (!funded || !['live', 'simulated'].includes(payments?.status ?? '') || corridors.length === 0) {
    const why = !funded ? `${target.environment}: only simulated funds an organization with an opening deposit` : `payments are ${payments?.status ?? 'not listed'} here (GET /capabilities)`;
    for (const step of later.slice(1)) skip(step, why);
    return;
  }

  if (target.webhookUrl) {
    await attempt('webhook', 'The putWebhookEndpoint function\'s log group; the URL must be https to a public address outside simulated.', async () => {
      const put = await request(`${base}/webhooks/endpoint`, { method: 'PUT', apiKey, json: { url: target.webhookUrl, events: ['transaction.reconciled'] } });
      if (put.status === 200 || put.status === 201) return pass('webhook', `${target.webhookUrl} registered for transaction.reconciled`);
      fail('webhook', `PUT /webhooks/endpoint answered ${put.status}: ${short(put.body)}`, 'The refusal above names the reason.');
    });
  } else {
    skip('webhook', 'no --webhook-url given');
  }

  const transactionId = `smoke-${randomBytes(6).toString('hex')}`;
  const deadline = Date.now() + target.timeoutMs;
  await attempt('payment', 'The payment workflow\'s executions (Step Functions console, payments-<stage>-payment) and its task functions\' log groups.', async () => {
    // A payment is paid from the home wallet, which the walletProvisioning workflow opens first.
    const wallets = await until(() => request(`${base}/wallets`, { apiKey }), (read) => read.status !== 200 || !(read.body?.accounts as { status: string }[]).some((account) => account.status === 'provisioning'), deadline);
    if (wallets.status === 200 && (wallets.body.accounts as { status: string }[]).some((account) => account.status === 'provisioning')) {
      return fail('payment', 'the home wallet is still provisioning', `The walletProvisioning executions of ${organizationId}.`);
    }
    const prefill = Prefill.parse((await request(`${base}/treasury/sandbox-prefill`, { apiKey })).body);
    const payout = prefill.payouts[0]!;
    const sendAmount = { amount: '10.00', currency: 'USDC' };
    const quote = await request(`${base}/quotes`, { method: 'POST', apiKey, json: { corridor: payout.corridor, sendAmount, idempotencyKey: transactionId } });
    if (quote.status !== 200) return fail('payment', `POST /quotes answered ${quote.status}: ${short(quote.body)}`, 'The createQuote function\'s log group.');
    const accepted = await request(`${base}/transactions`, {
      method: 'POST', apiKey,
      json: { idempotencyKey: transactionId, quoteId: quote.body.quoteId, corridor: payout.corridor, sendAmount, recipientReference: 'smoke test', beneficiary: payout.beneficiary },
    });
    if (accepted.status !== 202) return fail('payment', `POST /transactions answered ${accepted.status}: ${short(accepted.body)}`, 'The createTransaction function\'s log group.');
    const ended = await until(() => request(`${base}/transactions/${transactionId}`, { apiKey }), (read) => read.status === 200 && read.body?.running === false, deadline);
    const state = ended.body?.state ?? ended.body?.status;
    if (ended.body?.running !== false) return fail('payment', `${transactionId} still ${state} after ${Math.round(target.timeoutMs / 1000)} s`, `admin ops history ${organizationId} ${transactionId} (--stage …): where it waits.`);
    if (state !== 'RECONCILED') return fail('payment', `${transactionId} ended ${state}, not RECONCILED: ${short(ended.body?.failure ?? '')}`, `admin ops history ${organizationId} ${transactionId} (--stage …): where it stopped.`);
    pass('payment', `${transactionId}: 10.00 USDC to ${payout.corridor.to}, ${(ended.body.timeline as { state: string }[] | undefined)?.map((entry) => entry.state).join(' → ') ?? state}`);
  });

  if (!target.webhookUrl) skip('delivery', 'no --webhook-url given');
  else if (failed('webhook') || failed('payment')) skip('delivery', 'no webhook endpoint or no payment to deliver');
  else {
    await attempt('delivery', 'GET /events/{eventId} (its attempts), the webhookDelivery executions and the webhook starter\'s dead-letter queue.', async () => {
      const delivered = await until(async () => {
        const list = await request(`${base}/events?type=transaction.reconciled`, { apiKey });
        const event = (list.body?.events as { id: string; deliveryStatus: string }[] | undefined)?.[0];
        return event ? (await request(`${base}/events/${event.id}`, { apiKey })).body : undefined;
      }, (detail) => detail?.deliveryStatus === 'delivered' || detail?.deliveryStatus === 'failed', deadline);
      if (delivered?.deliveryStatus === 'delivered') {
        const last = (delivered.attempts as { httpStatus: number | null; latencyMs: number }[]).at(-1);
        return pass('delivery', `transaction.reconciled ${delivered.id} delivered: ${last?.httpStatus} in ${last?.latencyMs} ms`);
      }
      const attempts = (delivered?.attempts as { httpStatus: number | null; error: string | null }[] | undefined) ?? [];
      fail('delivery', delivered ? `${delivered.id} is ${delivered.deliveryStatus}; attempts: ${attempts.map((entry) => entry.httpStatus ?? entry.error).join(', ') || 'none yet'}` : 'no transaction.reconciled event yet',
        'The receiver (its answers above), then GET /events/{eventId} and the webhookDelivery executions.');
    });
  }

  if (failed('payment')) skip('history', 'no payment to read');
  else {
    await attempt('history', 'The CLI\'s WORKFLOW_ARN_PREFIX and your rights to states:GetExecutionHistory.', async () => {
      const history = await target.history(organizationId, transactionId);
      if (!history) return fail('history', `admin ops history found no operation ${transactionId}`, 'Is the CLI on the stage\'s table (TABLE_NAME)?');
      if (!history.executionFound) return fail('history', `the engine has no execution for ${transactionId}`, 'WORKFLOW_ARN_PREFIX: the stage\'s state machines payments-<stage>-…');
      pass('history', `admin ops history ${organizationId} ${transactionId}:\n${history.text.split('\n').map((line) => `      ${line}`).join('\n')}`);
    });
  }
}

/** The report as a deployer reads it: one line per step, then what to look at. */
export function renderSmokeReport(report: SmokeReport): string {
  const mark: Record<StepOutcome, string> = { passed: '✓', failed: '✗', skipped: '-' };
  const lines = [`smoke walk of ${report.target} (${report.environment})`];
  for (const step of report.steps) {
    lines.push(`  ${mark[step.outcome]} ${step.step.padEnd(12)} ${step.outcome === 'skipped' ? `skipped: ${step.detail}` : step.detail}`);
    if (step.lookAt) lines.push(`      look at: ${step.lookAt}`);
  }
  const count = (outcome: StepOutcome) => report.steps.filter((step) => step.outcome === outcome).length;
  lines.push(`${report.passed ? 'passed' : 'FAILED'}: ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`);
  return lines.join('\n');
}
