/**
 * `npm run bench`: figures as JSON on stdout (progress on stderr).
 * - GET /me and GET /health on the local stack: p50/p99 latency and requests per second at
 *   concurrency 1 and 16 (autocannon, load generated from a worker thread);
 * - DynamoDB calls per request, counted by the client's own middleware;
 * - team size (bench/teamSize.ts): the bytes and units GET /me writes for an organization of 1
 *   member and of 2,000, which must not grow;
 * - the DynamoDB requests GET /me sends, recorded from one request and sent again bare from this
 *   process (bench/bareCalls.ts), timed the same way as the HTTP requests, so the overhead ratio
 *   of the whole stack can be read;
 * - the minified bundle size and cold import time of every Lambda entry point;
 * - payments (bench/payments.ts): POST /quotes and POST /transactions under load, 202 → RECONCILED,
 *   payments per second end to end, DynamoDB calls, capacity and transitions per payment, and the
 *   AWS list-price cost per 1,000 payments.
 * - batches (bench/batches.ts): a 1,000-item batch, its 202 and the time until every item ended,
 *   calls, capacity and transitions per item, and the cost per 1,000 batch items;
 * - statements (bench/statements.ts): GET /statements of 10,000 payments, JSON and CSV, p50/p99, its
 *   DynamoDB calls and read units, and the same after 20,000 more payments outside its window;
 * - treasury (bench/treasury.ts): a simulated wire deposit to DELIVERED, a withdrawal to SENT and an
 *   off-ramp to PAID, with DynamoDB calls and workflow transitions per operation.
 * - webhooks (bench/webhooks.ts): event committed → first attempt received (p50, p99), and
 *   WEBHOOK_BENCH_PAYMENTS payments (default 1,000) whose receiver fails every event's first two
 *   attempts: all delivered, none lost, transitions, calls and cost per delivered event.
 * - pages (bench/pages.ts): GET /transactions at depth 100,000 rows against the first page;
 * - contention (bench/contention.ts): one organization's balance item under rising concurrency,
 *   conflicts and retries per payment (docs/capacity.md reads them).
 * BENCH_SECONDS (default 5) sets each autocannon run's duration. BENCH_ONLY (a comma-separated list
 * of sections: http, teamSize, payments, treasury, batches, statements, webhooks, pages, contention, storeCosts, lambdas) runs only those, for a figure
 * re-measured on its own; the whole bench is the default.
 *
 * It ends with the dashboard (bench/dashboard.ts): every goal figure of issue 28 and those met
 * before, goal, value, ratio and met or not. In the JSON as `dashboard`; as a text table on stderr,
 * after the JSON is written, so stdout stays one JSON document. Sections not run show as not measured.
 */
import { exitUnlessNodeRuntime } from '../lib/local/nodeRuntime.ts';

// On a Node older than the Lambda's, a clear refusal before anything starts (docs/decisions/099).
exitUnlessNodeRuntime();
process.env.LOG_LEVEL = 'SILENT';
// Its stdout is the figures as JSON: no metric lines (CloudWatch EMF) among them.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const { performance } = await import('node:perf_hooks');
const { Agent, request: httpRequest } = await import('node:http');
const autocannon = (await import('autocannon')).default;
const { startLocalService } = await import('../lib/local/service.ts');
const { onboardOrganization } = await import('../lib/ops/onboarding.ts');
const { setRateLimit } = await import('#store/organizations.ts');
const { dynamo, dynamoCallCount } = await import('#store/client.ts');
const { commandsSentBy, replayer } = await import('./bareCalls.ts');
const { lambdaBundleFigures } = await import('./lambdaFigures.ts');
const { paymentFigures } = await import('./payments.ts');
const { treasuryFigures } = await import('./treasury.ts');
const { batchFigures } = await import('./batches.ts');
const { statementFigures } = await import('./statements.ts');
const { teamSizeFigures } = await import('./teamSize.ts');
const { webhookFigures } = await import('./webhooks.ts');
const { pageFigures } = await import('./pages.ts');
const { contentionFigures } = await import('./contention.ts');
const { storeCostFigures } = await import('./storeCosts.ts');
const { dashboardRows, dashboardText } = await import('./dashboard.ts');

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const only = process.env.BENCH_ONLY?.split(',').map((name) => name.trim()).filter(Boolean);
/** Runs a section unless BENCH_ONLY leaves it out (then its figures are absent from the JSON). */
const section = async <T>(name: string, run: () => Promise<T>): Promise<T | undefined> => (only && !only.includes(name) ? undefined : run());
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return { p50: round(at(50)), p99: round(at(99)), samples: sorted.length };
}

function round(value: number, digits = 3) {
  return Number(value.toFixed(digits));
}

/**
 * Sequential timing, interleaved: each round times every function once, so JIT warm-up of
 * DynamoDB Local's JVM and machine noise fall on all of them alike (timing one set after the
 * other measured the warm-up, not the stack).
 */
async function timeInterleaved(fns: Record<string, () => Promise<unknown>>, rounds: number) {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(fns).map((name) => [name, []]));
  for (let round = 0; round < rounds; round += 1) {
    for (const [name, fn] of Object.entries(fns)) {
      const started = performance.now();
      await fn();
      samples[name]!.push(performance.now() - started);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, percentiles(values)]));
}

/** `concurrency` loops of `fn` for `ms`, each giving `fn` its number (0 to concurrency - 1); throughput and latency percentiles. */
async function timeConcurrent(fn: (worker: number) => Promise<unknown>, concurrency: number, ms: number) {
  const samples: number[] = [];
  const deadline = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await fn(worker);
        samples.push(performance.now() - started);
      }
    }),
  );
  return { ...percentiles(samples), perSecond: round(samples.length / (ms / 1000), 1) };
}

async function cannon(url: string, headers: Record<string, string>, connections: number) {
  const result = await autocannon({ url, headers, connections, duration: seconds, workers: 1 });
  return {
    connections,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requestsPerSecond: round(result.requests.average, 1),
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

log('starting the local service (DynamoDB Local, runner, poller, HTTP)');
const service = await startLocalService({ port: 0, waitSeconds: 0, tableName: 'bench' });
try {
  const created = await onboardOrganization({ name: 'Bench Org', kybStatus: 'approved' });
  await service.runner.waitFor(created.walletExecution);
  const apiKey = created.apiKey.apiKey;
  // The bench measures the stack, not the limiter's refusals: lift the read bucket out of reach.
  await setRateLimit(created.organization.id, 'read', { burst: 100_000_000, perSecond: 1_000_000 });
  const auth = { authorization: `Bearer ${apiKey}` };
  const fetchMe = () => fetch(`${service.url}/me`, { headers: auth }).then((response) => response.arrayBuffer());
  const fetchHealth = () => fetch(`${service.url}/health`).then((response) => response.arrayBuffer());
  await fetchMe();
  // The same request with node:http and a keep-alive agent, given its options as an object (not a
  // URL to take apart at every call): the client the AWS SDK itself uses, so the HTTP figure and the
  // bare DynamoDB figure pay for the same kind of client.
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  const serviceUrl = new URL(service.url);
  const meOptions = { hostname: serviceUrl.hostname, port: serviceUrl.port, path: '/me', method: 'GET', agent, headers: auth };
  const requestMe = () =>
    new Promise<void>((resolve, reject) => {
      const req = httpRequest(meOptions, (response) => {
        response.on('data', () => {});
        response.on('end', () => resolve());
        response.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });

  // DynamoDB calls per request, from the client's own counter.
  const callsPer = async (fn: () => Promise<unknown>, count = 100) => {
    const before = dynamoCallCount();
    for (let i = 0; i < count; i += 1) await fn();
    return round((dynamoCallCount() - before) / count, 2);
  };
  const dynamoCalls = { me: await callsPer(fetchMe), health: await callsPer(fetchHealth) };

  // The same calls GET /me makes (the key item's read beside the bucket's conditional UpdateItem),
  // recorded from one request and sent again bare (bench/bareCalls.ts).
  const meCommands = await commandsSentBy(dynamo(), requestMe);
  const meCommandNames = meCommands.map((command) => command.constructor.name).sort().join(', ');
  if (meCommandNames !== 'GetCommand, UpdateCommand') throw new Error(`GET /me sent ${meCommandNames || 'nothing'}; the bench expects the key's read and the bucket's charge`);
  const bareMe = replayer(dynamo(), meCommands, 'benchTat');
  // Side by side, each worker charges a bucket of its own: its condition holds on a time only it moves.
  const bareMeOfWorker = Array.from({ length: 16 }, (_, worker) => replayer(dynamo(), meCommands, `benchTat${worker}`));

  // The GET /me Lambda handler invoked in process with an API Gateway event, as Lambda does:
  // what our code adds, without the local HTTP adapter and client that API Gateway replaces.
  const { handler: meHandler } = await import('../functions/api/discovery/getMe.ts');
  const meEvent = {
    version: '2.0',
    routeKey: 'GET /me',
    rawPath: '/me',
    rawQueryString: '',
    headers: auth,
    requestContext: { requestId: 'bench', http: { method: 'GET', path: '/me' } },
    isBase64Encoded: false,
  };
  const invokeMe = () => meHandler(structuredClone(meEvent) as never, { getRemainingTimeInMillis: () => 10_000 } as never);

  const timed = { me: requestMe, meFetch: fetchMe, meHandler: invokeMe, health: fetchHealth, bareDynamoForMe: bareMe };
  const requestFigures = await section('http', async () => {
    log('warming up (JIT of this process and of DynamoDB Local)');
    await timeInterleaved(timed, 1500);
    log('timing sequential requests and bare calls, interleaved');
    const sequential = await timeInterleaved(timed, 2000);
    const concurrent16 = {
      me: await timeConcurrent(requestMe, 16, seconds * 1000),
      bareDynamoForMe: await timeConcurrent((worker) => bareMeOfWorker[worker]!(), 16, seconds * 1000),
    };
    log(`autocannon, ${seconds}s per run`);
    const http = {
      me: { c1: await cannon(`${service.url}/me`, auth, 1), c16: await cannon(`${service.url}/me`, auth, 16) },
      health: { c1: await cannon(`${service.url}/health`, {}, 1), c16: await cannon(`${service.url}/health`, {}, 16) },
    };
    return {
      http,
      dynamoCallsPerRequest: dynamoCalls,
      sequentialMs: sequential,
      concurrency16Ms: concurrent16,
      overhead: {
        meP50OverBareP50: round(sequential.me!.p50 / sequential.bareDynamoForMe!.p50, 2),
        meHandlerP50OverBareP50: round(sequential.meHandler!.p50 / sequential.bareDynamoForMe!.p50, 2),
        note: 'me = over HTTP through the local adapter with a node:http keep-alive client (meFetch: the same with fetch); meHandler = the Lambda handler invoked in process (API Gateway replaces the adapter in AWS)',
        target: 'GET /me p50 within 1.3x of its bare DynamoDB calls (the key read and the bucket charge, together); at most 2 DynamoDB calls per read',
      },
    };
  });

  const teamSize = await section('teamSize', () => teamSizeFigures({ service, log }));
  const payments = await section('payments', () => paymentFigures({ service, seconds, log }));
  const treasury = await section('treasury', () => treasuryFigures({ service, seconds, log }));
  const batches = await section('batches', () => batchFigures({ service, log }));
  const statements = await section('statements', () => statementFigures({ service, log }));
  const webhooks = await section('webhooks', () => webhookFigures({ service, log }));
  const pages = await section('pages', () => pageFigures({ service, log }));
  const contention = await section('contention', () => contentionFigures({ service, log }));
  // Last of those that use the table: it leaves its items behind.
  const storeCosts = await section('storeCosts', () => storeCostFigures({ service, log }));

  const lambdas = await section('lambdas', () => {
    log('bundling Lambda entry points and timing cold imports');
    return lambdaBundleFigures();
  });

  const figures = {
    benchmark: 'foundation',
    at: new Date().toISOString(),
    machine: { node: process.version, cpus: (await import('node:os')).cpus().length },
    durationSecondsPerRun: seconds,
    ...requestFigures,
    /** What one request writes, for a team of 1 and of 2,000 (bench/teamSize.ts). */
    teamSize,
    lambdas,
    payments,
    treasury,
    batches,
    statements,
    webhooks,
    pages,
    contention,
    /** CPU per DynamoDB call of each kind, on this machine (bench/storeCosts.ts). */
    storeCosts,
  };
  const dashboard = dashboardRows(figures);
  process.stdout.write(`${JSON.stringify({ ...figures, dashboard }, null, 2)}\n`);
  process.stderr.write(`\n${dashboardText(dashboard)}\n`);
} finally {
  await service.stop();
}
process.exit(0);
