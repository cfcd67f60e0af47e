import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { bundleLambdas, lambdaNodeOptions, type LambdaBundle } from '../../lib/build/lambdaBundles.ts';
import type { LocalService } from '../../lib/local/service.ts';
import { getMe } from '#contract/routes.ts';
import { config } from '#platform/config.ts';
import { createTestOrganization, startTestService, type TestOrganization } from '../support/service.ts';

/**
 * A bundle as the CDK deploys it, run the way Lambda runs it: a fresh Node process importing
 * `index.mjs` with the function's NODE_OPTIONS and handed an HTTP API event. The rest of the suite
 * runs the handlers from their TypeScript; this is what shows the build's own rewrites (middy's
 * streams read at first use, node:http without its ES facade: docs/decisions/148, 156) still answer
 * a request that reads DynamoDB over HTTP.
 */
let service: LocalService;
let organization: TestOrganization;
let outRoot: string;
let bundle: LambdaBundle;

beforeAll(async () => {
  service = await startTestService();
  organization = await createTestOrganization(service);
  outRoot = mkdtempSync(join(tmpdir(), 'deployed-bundle-'));
  bundle = bundleLambdas([getMe.handler], { outRoot, flavor: 'simulated' })[0]!;
});

afterAll(async () => {
  await service?.stop();
  if (outRoot) rmSync(outRoot, { recursive: true, force: true });
});

function meEvent(authorization: string): APIGatewayProxyEventV2 {
  const now = new Date();
  return {
    version: '2.0',
    routeKey: 'GET /me',
    rawPath: '/me',
    rawQueryString: '',
    headers: { authorization, host: 'api.example' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.example',
      domainPrefix: 'api',
      http: { method: 'GET', path: '/me', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'deployedBundle.test' },
      requestId: 'deployed-bundle-test',
      routeKey: 'GET /me',
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
async function invoke(event: APIGatewayProxyEventV2): Promise<Invocation> {
  const script = `const { handler } = await import(${JSON.stringify(join(bundle.outdir, 'index.mjs'))});
const result = await handler(JSON.parse(process.env.EVENT), { awsRequestId: 'deployed-bundle-test', getRemainingTimeInMillis: () => 10000 });
process.stdout.write(JSON.stringify({ result, undici: process.moduleLoadList.filter((name) => name.includes('undici')) }));`;
  // Awaited, never spawnSync: this process serves the stack the bundle reads from (test/support/admin.ts).
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
    env: {
      PATH: process.env.PATH,
      EVENT: JSON.stringify(event),
      NODE_OPTIONS: lambdaNodeOptions,
      SERVICE_ENVIRONMENT: 'simulated',
      TABLE_NAME: config().TABLE_NAME,
      DYNAMODB_ENDPOINT: process.env.DYNAMODB_ENDPOINT,
      AWS_REGION: config().AWS_REGION,
      LOG_LEVEL: 'ERROR',
    },
    timeout: 30_000,
  });
  return JSON.parse(stdout) as Invocation;
}

describe('a deployed bundle, run as Lambda runs it', () => {
  it('answers GET /me from DynamoDB with the key\'s organization, and 401 for a key it does not hold, without loading undici', async () => {
    const known = await invoke(meEvent(`Bearer ${organization.apiKey}`));
    expect(known.result.statusCode).toBe(200);
    expect(JSON.parse(known.result.body!)).toMatchObject({ id: organization.organizationId, name: 'Test Org', role: 'owner' });
    // The SDK's HTTP client and our own import node:http: through the alias, its ES facade (and the
    // undici its getters load) is never built, at import or at the request.
    expect(known.undici).toEqual([]);

    const unknown = await invoke(meEvent(`Bearer ${organization.apiKey.slice(0, -4)}zzzz`));
    expect(unknown.result.statusCode).toBe(401);
    expect(JSON.parse(unknown.result.body!)).toMatchObject({ error: 'unauthorized' });
  });
});
