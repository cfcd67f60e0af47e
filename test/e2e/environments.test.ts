import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { call } from '../support/service.ts';
import { features } from '#wiring/features.ts';

/**
 * On an environment without provider adapters, what only has simulators is not offered: the
 * capabilities say so and the endpoints answer 501 naming the feature, never a 500 or an
 * invented success.
 */
let service: LocalService;
let apiKey: string;

beforeAll(async () => {
  service = await startLocalService({
    port: 0,
    dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
    tableName: `env-${randomBytes(6).toString('hex')}`,
    environment: 'sandbox',
    waitSeconds: 0,
  });
  apiKey = (await onboardOrganization({ name: 'Sandbox Org', kybStatus: 'approved' })).apiKey.apiKey;
});

afterAll(async () => {
  await service?.stop();
  process.env.SERVICE_ENVIRONMENT = 'simulated';
});

describe('sandbox with no provider adapters', () => {
  it('publishes no corridors and the simulator-only features as planned', async () => {
    const { body } = await call(service, 'GET', '/capabilities');
    expect(body.environment).toBe('sandbox');
    expect(body.corridors).toEqual([]);
    const byName = Object.fromEntries(body.features.map((f: { feature: string }) => [f.feature, f]));
    for (const [name, definition] of Object.entries(features)) {
      if ('simulatorOnly' in definition && definition.simulatorOnly) expect(byName[name].status).toBe('planned');
    }
  });

  it('POST /quotes and POST /transactions answer 501 naming their feature', async () => {
    const quote = await call(service, 'POST', '/quotes', {
      apiKey,
      body: { corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10', currency: 'USDC' } },
    });
    expect(quote.status).toBe(501);
    expect(quote.body).toMatchObject({ error: 'not_implemented', feature: 'quotes' });
    const payment = await call(service, 'POST', '/transactions', {
      apiKey,
      body: {
        idempotencyKey: 'sandbox-payment-1', corridor: { to: 'MXN', destinationCountry: 'MX' }, sendAmount: { amount: '10', currency: 'USDC' },
        recipientReference: 'r', beneficiary: { name: 'A', account: '002010077777777771' },
      },
    });
    expect(payment.status).toBe(501);
    expect(payment.body).toMatchObject({ error: 'not_implemented', feature: 'payments' });
  });
});
