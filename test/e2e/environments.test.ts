import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { call, startTestService } from '../support/service.ts';
import { sampleOffRampBeneficiaries } from '#operations/offRamp/beneficiaries.ts';
import { features } from '#contract/features.ts';

/**
 * On an environment without provider adapters, what only has simulators is not offered: the
 * capabilities say so and the endpoints answer 501 naming the feature, never a 500 or an
 * invented success.
 */
let service: LocalService;
let apiKey: string;

beforeAll(async () => {
  service = await startTestService('sandbox');
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

  it('every treasury endpoint that needs a provider answers 501 naming its feature, never an empty list or an invented success', async () => {
    const offRamp = { idempotencyKey: 'sandbox-offramp-1', amount: { amount: '10', currency: 'USDC' }, beneficiaryId: randomUUID() };
    const expected: [string, string, string, unknown?][] = [
      ['offramp', 'POST', '/treasury/beneficiaries', sampleOffRampBeneficiaries[0]],
      ['offramp', 'GET', '/treasury/beneficiaries'],
      ['offramp', 'GET', `/treasury/offramp/quote?amount=10&beneficiaryId=${randomUUID()}`],
      ['offramp', 'POST', '/treasury/offramp', offRamp],
      ['offramp', 'GET', '/treasury/offramps'],
      ['offramp', 'GET', '/treasury/offramp/some-off-ramp-id'],
      ['onramp', 'GET', '/treasury/onramp/quote?amount=100&currency=USD'],
      ['onramp', 'POST', '/treasury/onramp', { idempotencyKey: 'sandbox-onramp-1', amount: { amount: '100', currency: 'USD' } }],
      ['onramp', 'GET', '/treasury/onramps'],
      ['onramp', 'GET', '/treasury/onramp/some-on-ramp-id'],
      ['onramp-pix', 'GET', '/treasury/onramp/pix/quote?amount=100.00'],
      ['onramp-pix', 'POST', '/treasury/onramp/pix', { idempotencyKey: 'sandbox-pix-1', amount: { amount: '100.00' } }],
      ['withdrawals', 'GET', '/treasury/withdrawals/quote?amount=10&chain=base'],
      ['withdrawals', 'POST', '/treasury/withdrawals', { idempotencyKey: 'sandbox-wd-1', amount: { amount: '10', currency: 'USDC' }, chain: 'base', toAddress: '0x52908400098527886e0f7030069857d2e4169ee7' }],
      ['withdrawals', 'GET', '/treasury/withdrawals'],
    ];
    const { body: capabilities } = await call(service, 'GET', '/capabilities');
    for (const [feature, method, path, body] of expected) {
      expect(capabilities.features.find((f: { feature: string }) => f.feature === feature).status, feature).toBe('planned');
      const answer = await call(service, method, path, { apiKey, ...(body === undefined ? {} : { body }) });
      expect(answer.status, `${method} ${path}`).toBe(501);
      expect(answer.body, `${method} ${path}`).toMatchObject({ error: 'not_implemented', feature });
    }
  });
});
