/**
 * `npm run bench`: figures as JSON on stdout (progress on stderr).
 * - GET /me and GET /health on the local stack: p50/p99 latency and requests per second at
 *   concurrency 1 and 16 (autocannon, load generated from a worker thread);
 * - DynamoDB calls per request, counted by the client's own middleware;
 * - the same DynamoDB calls made bare from this process, timed the same way as the HTTP
 *   requests, so the overhead ratio of the whole stack can be read;
 * - the minified bundle size and cold import time of every Lambda entry point.
 * BENCH_SECONDS (default 5) sets each autocannon run's duration.
 */
export {};
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.LOG_LEVEL = 'SILENT';

const { performance } = await import('node:perf_hooks');
const autocannon = (await import('autocannon')).default;
const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
const { startLocalService } = await import('../lib/local/service.ts');
const { onboardOrganization } = await import('../lib/ops/onboarding.ts');
const { setRateLimit } = await import('#store/organizations.ts');
const { dynamo, dynamoCallCount, tableName } = await import('#store/client.ts');
const { keys } = await import('#store/keys.ts');
const { parseApiKey } = await import('#core/apiKeys.ts');
const { lambdaBundleFigures } = await import('./lambdaFigures.ts');

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

function percentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
  return { p50: round(at(50)), p99: round(at(99)), samples: sorted.length };
}

function round(value: number, digits = 3) {
  return Number(value.toFixed(digits));
}

/** Sequential timing of `fn`, the same way for HTTP requests and bare DynamoDB calls. */
async function timeSequential(fn: () => Promise<unknown>, count: number) {
  for (let i = 0; i < 50; i += 1) await fn(); // warm up
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  return percentiles(samples);
}

/** `concurrency` loops of `fn` for `ms`; throughput and latency percentiles. */
async function timeConcurrent(fn: () => Promise<unknown>, concurrency: number, ms: number) {
  const samples: number[] = [];
  const deadline = performance.now() + ms;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const started = performance.now();
        await fn();
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

  // DynamoDB calls per request, from the client's own counter.
  const callsPer = async (fn: () => Promise<unknown>, count = 100) => {
    const before = dynamoCallCount();
    for (let i = 0; i < count; i += 1) await fn();
    return round((dynamoCallCount() - before) / count, 2);
  };
  const dynamoCalls = { me: await callsPer(fetchMe), health: await callsPer(fetchHealth) };

  // The same call GET /me makes (one conditional UpdateItem), bare.
  const key = parseApiKey(apiKey, 'simulated')!;
  let tat = Date.now();
  const bareMe = () => {
    tat += 1;
    return dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.organization(key.organizationId),
        UpdateExpression: 'SET #tat = :newTat',
        ConditionExpression: '#keys.#kid.#hash = :hash',
        ExpressionAttributeNames: { '#tat': 'benchTat', '#keys': 'keys', '#kid': key.keyId, '#hash': 'hash' },
        ExpressionAttributeValues: { ':newTat': tat, ':hash': key.hash },
        ReturnValues: 'ALL_OLD',
      }),
    );
  };

  log('timing sequential requests and bare calls');
  const sequential = {
    me: await timeSequential(fetchMe, 1000),
    health: await timeSequential(fetchHealth, 1000),
    bareDynamoForMe: await timeSequential(bareMe, 1000),
  };
  const concurrent16 = {
    me: await timeConcurrent(fetchMe, 16, seconds * 1000),
    bareDynamoForMe: await timeConcurrent(bareMe, 16, seconds * 1000),
  };

  log(`autocannon, ${seconds}s per run`);
  const http = {
    me: { c1: await cannon(`${service.url}/me`, auth, 1), c16: await cannon(`${service.url}/me`, auth, 16) },
    health: { c1: await cannon(`${service.url}/health`, {}, 1), c16: await cannon(`${service.url}/health`, {}, 16) },
  };

  log('bundling Lambda entry points and timing cold imports');
  const lambdas = await lambdaBundleFigures();

  const figures = {
    benchmark: 'foundation',
    at: new Date().toISOString(),
    machine: { node: process.version, cpus: (await import('node:os')).cpus().length },
    durationSecondsPerRun: seconds,
    http,
    dynamoCallsPerRequest: dynamoCalls,
    sequentialMs: sequential,
    concurrency16Ms: concurrent16,
    overhead: {
      meP50OverBareP50: round(sequential.me.p50 / sequential.bareDynamoForMe.p50, 2),
      target: 'GET /me p50 within 1.3x of its bare DynamoDB calls; at most 2 DynamoDB calls per read',
    },
    lambdas,
  };
  process.stdout.write(`${JSON.stringify(figures, null, 2)}\n`);
} finally {
  await service.stop();
}
process.exit(0);
