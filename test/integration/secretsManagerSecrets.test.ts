import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startFakeSecretsManager, type FakeSecretsManager } from '../support/fakeSecretsManager.ts';
import { until } from '../support/eventually.ts';

/**
 * The two secrets a deployed stage reads from Secrets Manager, which only AWS runs: the edge's origin
 * secret (every request on sandbox and production, docs/decisions/104) and the cursors' HMAC key
 * (docs/decisions/070). Elsewhere the tests give them as ORIGIN_SECRET and CURSOR_SECRET; here the
 * functions are given the ARNs, as the CDK stacks give them, and the real SDK client reads them from a
 * stand-in that speaks Secrets Manager's protocol (test/support/fakeSecretsManager.ts). Each test loads
 * the modules afresh, as a new Lambda container would, since both keep what they read for five
 * minutes (functions/platform/stageSecret.ts, docs/decisions/167).
 */
const originArn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:payments-production-origin-AbCdEf';
const cursorArn = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:payments-production-cursors-GhIjKl';
let secretsManager: FakeSecretsManager;

beforeAll(async () => {
  secretsManager = await startFakeSecretsManager();
});

afterAll(async () => {
  vi.unstubAllEnvs();
  vi.resetModules();
  (await import('#platform/config.ts')).reloadConfig();
  await secretsManager.stop();
});

beforeEach(() => {
  vi.stubEnv('SERVICE_ENVIRONMENT', 'production');
  vi.stubEnv('AWS_LAMBDA_FUNCTION_NAME', 'payments-production-api-discovery-getMe');
  vi.stubEnv('ORIGIN_SECRET', undefined);
  vi.stubEnv('ORIGIN_SECRET_ARN', originArn);
  vi.stubEnv('CURSOR_SECRET', undefined);
  vi.stubEnv('CURSOR_SECRET_ARN', cursorArn);
  vi.stubEnv('AWS_ENDPOINT_URL_SECRETS_MANAGER', secretsManager.url);
  secretsManager.secrets.clear();
  secretsManager.requests.length = 0;
  secretsManager.failing = false;
  vi.resetModules();
});

afterEach(() => {
  vi.useRealTimers();
});

/** The modules as a new container loads them: nothing read yet. */
async function freshContainer() {
  (await import('#platform/config.ts')).reloadConfig();
  const { requireEdgeOrigin, edgeOriginHeader } = await import('#platform/edgeOrigin.ts');
  const { ApiError, isDependencyUnavailable } = await import('#platform/errors.ts');
  const { encodeCursor, decodeCursor } = await import('#store/cursors.ts');
  const through = (value: string) => requireEdgeOrigin({ [edgeOriginHeader]: value });
  /** The request's outcome: passed, or the ApiError code it was refused with. */
  const outcome = (value: string) => through(value).then(() => 'passed', (error: unknown) => (error instanceof ApiError ? error.code : Promise.reject(error)));
  return { through, outcome, ApiError, isDependencyUnavailable, encodeCursor, decodeCursor };
}

const current = 'c'.repeat(48);
const next = 'n'.repeat(48);
const reads = (secretId: string) => secretsManager.requests.filter((request) => request.secretId === secretId);

describe('the origin secret, read from Secrets Manager', () => {
  it('lets through a request carrying the current or, while CloudFront catches up with a rotation, the previous value, and refuses any other', async () => {
    secretsManager.secrets.set(originArn, { current: next, previous: current });
    const { outcome } = await freshContainer();
    expect(await outcome(next)).toBe('passed');
    expect(await outcome(current)).toBe('passed');
    expect(await outcome('x'.repeat(48))).toBe('forbidden');
    expect(await outcome(next.slice(0, 8))).toBe('forbidden');
    expect(await outcome('')).toBe('forbidden');
    expect(reads(originArn).map((request) => request.versionStage).sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);
  });

  it('takes a secret never rotated (no AWSPREVIOUS, which Secrets Manager answers ResourceNotFound) as its current value alone', async () => {
    secretsManager.secrets.set(originArn, { current });
    const { outcome } = await freshContainer();
    expect(await outcome(current)).toBe('passed');
    expect(await outcome(next)).toBe('forbidden');
  });

  it('reads once for the requests of five minutes, side by side ones too, then again: a rotation is let through everywhere within that', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    secretsManager.secrets.set(originArn, { current });
    const { outcome } = await freshContainer();
    expect(await Promise.all(Array.from({ length: 10 }, () => outcome(current)))).toEqual(Array(10).fill('passed'));
    expect(reads(originArn)).toHaveLength(2);

    secretsManager.rotate(originArn, next);
    vi.setSystemTime(Date.now() + 4 * 60 * 1000);
    expect(await outcome(next)).toBe('forbidden');
    expect(reads(originArn)).toHaveLength(2);

    vi.setSystemTime(Date.now() + 60 * 1000 + 1);
    expect(await outcome(next)).toBe('passed');
    expect(await outcome(current)).toBe('passed');
    expect(reads(originArn)).toHaveLength(4);
  });

  it('answers a Secrets Manager that does not answer as a dependency unavailable (503), keeps nothing, and reads again at the next request', async () => {
    secretsManager.secrets.set(originArn, { current });
    secretsManager.failing = true;
    const { through, outcome, isDependencyUnavailable } = await freshContainer();
    const error = await through(current).then(() => undefined, (thrown: unknown) => thrown);
    expect(isDependencyUnavailable(error)).toBe(true);
    // The SDK's own retries, three attempts of each version; the request is answered at the first
    // version that gives up, so the other may still be trying.
    await until(async () => reads(originArn).length, (count) => count === 6, { what: "both versions' three attempts" });

    secretsManager.failing = false;
    expect(await outcome(current)).toBe('passed');
    expect(reads(originArn)).toHaveLength(8);
  });

  it('keeps what it read when a later read fails, rather than refuse every request: tries again every thirty seconds, and takes a rotation once Secrets Manager answers', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    secretsManager.secrets.set(originArn, { current });
    const { outcome } = await freshContainer();
    expect(await outcome(current)).toBe('passed');
    expect(reads(originArn)).toHaveLength(2);

    secretsManager.failing = true;
    secretsManager.rotate(originArn, next);
    vi.setSystemTime(Date.now() + 5 * 60 * 1000 + 1);
    expect(await outcome(current)).toBe('passed');
    expect(await outcome(next)).toBe('forbidden');
    // Three attempts of each version (the SDK's retries), the other version's perhaps still under way.
    const tried = await until(async () => reads(originArn).length, (count) => count === 8, { what: "both versions' three attempts" });
    // Within thirty seconds of a failed try, requests are answered from what is held, without a read.
    vi.setSystemTime(Date.now() + 29 * 1000);
    expect(await outcome(current)).toBe('passed');
    expect(reads(originArn)).toHaveLength(tried);

    secretsManager.failing = false;
    vi.setSystemTime(Date.now() + 1000 + 1);
    expect(await outcome(next)).toBe('passed');
    expect(await outcome(current)).toBe('passed');
    expect(reads(originArn)).toHaveLength(tried + 2);
  });

  it('refuses everything in a deployed function whose secret is empty, rather than serve around the edge', async () => {
    secretsManager.secrets.set(originArn, { current: '' });
    const { through } = await freshContainer();
    await expect(through('')).rejects.toThrow(/origin secret is empty/);
  });
});

describe('the cursor key, read from Secrets Manager', () => {
  const scope = { list: 'transactions', organizationId: 'org_01M8JK93F86XMKTYPD79XPJD5X' };

  it('signs with the current key and accepts the previous one too, so a rotation refuses no cursor in flight; within five minutes every container signs with the new key', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    secretsManager.secrets.set(cursorArn, { current: 'k'.repeat(64) });
    const warm = await freshContainer();
    const before = await warm.encodeCursor(scope, '2026-11-29T03:00:00.000Z#tx_1');
    expect(await warm.decodeCursor(scope, before)).toBe('2026-11-29T03:00:00.000Z#tx_1');
    await warm.encodeCursor(scope, '2026-11-29T03:00:01.000Z#tx_2');
    expect(reads(cursorArn).map((request) => request.versionStage).sort()).toEqual(['AWSCURRENT', 'AWSPREVIOUS']);

    secretsManager.rotate(cursorArn, 'z'.repeat(64));
    vi.resetModules();
    const cold = await freshContainer();
    const after = await cold.encodeCursor(scope, '2026-11-29T03:00:00.000Z#tx_1');
    expect(after).not.toBe(before);
    expect(await cold.decodeCursor(scope, before)).toBe('2026-11-29T03:00:00.000Z#tx_1');
    expect(await cold.decodeCursor(scope, after)).toBe('2026-11-29T03:00:00.000Z#tx_1');

    // The warm container still holds the old key alone: the new key's cursors wait for its next read.
    await expect(warm.decodeCursor(scope, after)).rejects.toMatchObject({ code: 'invalid_cursor' });
    vi.setSystemTime(Date.now() + 5 * 60 * 1000 + 1);
    expect(await warm.decodeCursor(scope, after)).toBe('2026-11-29T03:00:00.000Z#tx_1');
    expect(await warm.encodeCursor(scope, '2026-11-29T03:00:00.000Z#tx_1')).toBe(after);
    expect(await warm.decodeCursor(scope, before)).toBe('2026-11-29T03:00:00.000Z#tx_1');

    // A second rotation retires the first key: its cursors are refused from then on.
    secretsManager.rotate(cursorArn, 'y'.repeat(64));
    vi.resetModules();
    const later = await freshContainer();
    expect(await later.decodeCursor(scope, after)).toBe('2026-11-29T03:00:00.000Z#tx_1');
    await expect(later.decodeCursor(scope, before)).rejects.toMatchObject({ code: 'invalid_cursor' });
    await expect(later.decodeCursor(scope, `${before.split('.')[0]}.${'A'.repeat(43)}`)).rejects.toMatchObject({ code: 'invalid_cursor' });
  });

  it('answers a Secrets Manager that does not answer as a dependency unavailable (503), and a deployed function whose key is empty refuses to sign', async () => {
    secretsManager.secrets.set(cursorArn, { current: 'k'.repeat(64) });
    secretsManager.failing = true;
    const container = await freshContainer();
    const error = await container.encodeCursor(scope, 'a#tx_1').then(() => undefined, (thrown: unknown) => thrown);
    expect(container.isDependencyUnavailable(error)).toBe(true);
    // The other version's attempts may still be under way: all six fail before Secrets Manager answers again.
    await until(async () => reads(cursorArn).length, (count) => count === 6, { what: "both versions' three attempts" });
    secretsManager.failing = false;
    expect(await container.decodeCursor(scope, await container.encodeCursor(scope, 'a#tx_1'))).toBe('a#tx_1');

    secretsManager.secrets.set(cursorArn, { current: '' });
    vi.resetModules();
    await expect((await freshContainer()).encodeCursor(scope, 'a#tx_1')).rejects.toThrow(/cursor key is empty/);
  });
});
