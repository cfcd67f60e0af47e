import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { bundleCode, bundleFiles, bundleLambdas, type LambdaBundle } from '../../lib/build/lambdaBundles.ts';
import type { LocalService } from '../../lib/local/service.ts';
import { getMe, listTransactions } from '#contract/routes.ts';
import { config } from '#platform/config.ts';
import { createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';

/**
 * A bundle as the CDK deploys it, run the way Lambda runs it: a fresh Node process importing
 * `index.mjs` with the function's environment and handed an HTTP API event. The rest of the suite
 * runs the handlers from their TypeScript; this is what shows the build's own rewrites (middy's
 * streams read at first use, node:http without its ES facade, the credentials from the environment
 * only: docs/decisions/148, 156, 158) still answer a request that reads DynamoDB over HTTP, and
 * that a refusal still reads in English without classic zod in the process (docs/decisions/160).
 * DynamoDB Local is named the way any AWS endpoint can be (AWS_ENDPOINT_URL_DYNAMODB), not through
 * DYNAMODB_ENDPOINT, which gives the client fixed local keys: the keys here come from the
 * environment Lambda fills, through the credential provider the bundle carries.
 */
let service: LocalService;
let organization: TestOrganization;
let outRoot: string;
let bundle: LambdaBundle;
let listBundle: LambdaBundle;

beforeAll(async () => {
  service = await startTestService();
  organization = await createTestOrganization(service);
  outRoot = mkdtempSync(join(tmpdir(), 'deployed-bundle-'));
  [bundle, listBundle] = bundleLambdas([getMe.handler, listTransactions.handler], { outRoot, flavor: 'simulated' }) as [LambdaBundle, LambdaBundle];
});

afterAll(async () => {
  await service?.stop();
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
});

function apiEvent(authorization: string, path = '/me', query: Record<string, string> = {}): APIGatewayProxyEventV2 {
  const now = new Date();
  return {
    version: '2.0',
    routeKey: `GET ${path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(query).toString(),
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    headers: { authorization, host: 'api.example' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example',
      domainPrefix: 'api',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'deployedBundle.test' },
      requestId: 'deployed-bundle-test',
      routeKey: `GET ${path}`,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    isBase64Encoded: false,
  };
}

interface Invocation {
  result: APIGatewayProxyStructuredResultV2;
  /** Node's own modules of undici loaded by the end (docs/decisions/156: none, at import or at the request). */
  undici: string[];
}

/** Imports the bundle in a process of its own and answers what its handler returned for the event. */
async function invoke(event: APIGatewayProxyEventV2, credentials: Record<string, string> = lambdaCredentials, from: LambdaBundle = bundle): Promise<Invocation> {
  const script = `const { handler } = await import(${JSON.stringify(join(from.outdir, 'index.mjs'))});
const result = await handler(JSON.parse(process.env.EVENT), { awsRequestId: 'deployed-bundle-test', getRemainingTimeInMillis: () => 10000 });
process.stdout.write('\\n' + JSON.stringify({ result, undici: process.moduleLoadList.filter((name) => name.includes('undici')) }));`;
  const stdout = await runAsLambda(script, { EVENT: JSON.stringify(event) }, credentials);
  // The handler's own log lines (an error's) come first.
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Invocation;
}

/** Runs a module script in a Node process of its own, with the environment Lambda gives the function; answers its output. */
async function runAsLambda(script: string, environment: Record<string, string> = {}, credentials: Record<string, string> = lambdaCredentials): Promise<string> {
  // Awaited, never spawnSync: this process serves the stack the bundle reads from (test/support/admin.ts).
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH,
      SERVICE_ENVIRONMENT: 'simulated',
      TABLE_NAME: config().TABLE_NAME,
      AWS_ENDPOINT_URL_DYNAMODB: process.env.DYNAMODB_ENDPOINT,
      ...credentials,
      AWS_REGION: config().AWS_REGION,
      LOG_LEVEL: 'ERROR',
      ...environment,
    },
    timeout: 30_000,
  });
  return stdout;
}

/** What Lambda sets for the execution role (DynamoDB Local takes any key). */
const lambdaCredentials = { AWS_ACCESS_KEY_ID: 'ASIALOCALROLE', AWS_SECRET_ACCESS_KEY: 'local-role-secret', AWS_SESSION_TOKEN: 'local-role-session' };

describe('a deployed bundle, run as Lambda runs it', () => {
  it('answers GET /me from DynamoDB with the key\'s organization, and 401 for a key it does not hold, without loading undici', async () => {
    const known = await invoke(apiEvent(`Bearer ${organization.apiKey}`));
    expect(known.result.statusCode).toBe(200);
    expect(JSON.parse(known.result.body!)).toMatchObject({ id: organization.organizationId, name: 'Test Org', role: 'owner' });
    // The SDK's HTTP client and our own import node:http: through the alias, its ES facade (and the
    // undici its getters load) is never built, at import or at the request.
    expect(known.undici).toEqual([]);

    const unknown = await invoke(apiEvent(`Bearer ${organization.apiKey.slice(0, -4)}zzzz`));
    expect(unknown.result.statusCode).toBe(401);
    expect(JSON.parse(unknown.result.body!)).toMatchObject({ error: 'unauthorized' });
  });

  it('signs with the credentials Lambda puts in the environment, and carries no other way to find them', async () => {
    // Without them the read fails (500), where the SDK's whole chain would go on to profiles, SSO and instance metadata.
    const withoutKeys = await invoke(apiEvent(`Bearer ${organization.apiKey}`), {});
    expect(withoutKeys.result.statusCode).toBe(500);
    const code = bundleCode(bundle);
    // The chain's own steps (its debug lines name them) are not in the bundle.
    expect(['defaultProvider::fromSSO', 'defaultProvider::fromIni', 'defaultProvider::remoteProvider'].filter((step) => code.includes(step))).toEqual([]);
  });

  it('refuses a bad query with zod\'s English messages, which zod/mini carries only through the locale config.ts sets', async () => {
    // The rest of the suite loads classic zod, which sets the same locale for the whole process;
    // only a bundle of its own shows that a function without it still names what is wrong.
    const refused = await invoke(apiEvent(`Bearer ${organization.apiKey}`, '/transactions', { limit: '0' }), lambdaCredentials, listBundle);
    expect(refused.result.statusCode).toBe(400);
    const body = JSON.parse(refused.result.body!) as { error: string; issues: { path: unknown[]; message: string }[] };
    expect(body.error).toBe('validation');
    expect(body.issues).toEqual([{ path: ['query', 'limit'], message: 'Too small: expected number to be >0' }]);
  });

  it('loads at import only index.mjs and its static chunks; each chunk it imports at first use loads on its own (docs/decisions/161)', async () => {
    const files = bundleFiles(bundle);
    // The SDK's event-stream code and the Secrets Manager client (the edge's secret, read at the first
    // request on sandbox and production) are chunks, not code every cold start parses; the SDK's browser
    // user-agent parser, which no function reaches, is not in the asset at all.
    const names = files.map((file) => file.split('/').at(-1)!);
    expect(names.filter((file) => /^(secretsManager|event-streams)-/.test(file))).toHaveLength(2);
    expect(names.filter((file) => file.startsWith('bowser-'))).toEqual([]);
    expect(bundle.importBytes).toBeLessThan(bundle.bytes);
    // Each file resolves what it imports inside the asset directory, as Lambda will find it in /var/task.
    const script = `await Promise.all(${JSON.stringify(files)}.map((file) => import(file))); process.stdout.write('loaded')`;
    expect(await runAsLambda(script)).toBe('loaded');
  });
});
