import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalService, type LocalService } from '../../lib/local/service.ts';
import { onboardOrganization } from '../../lib/ops/onboarding.ts';
import { call } from '../support/service.ts';
import { sampleOffRampBeneficiaries } from '#core/offRampBeneficiaries.ts';

/**
 * "Off-ramp endpoints answer 501 on environments where off-ramps are not enabled" (the contract):
 * on a sandbox with no off-ramp provider adapter, every one of them, beneficiaries included,
 * answers 501 naming the feature, never a 500, an empty list or an invented success.
 */
let service: LocalService;
let apiKey: string;

beforeAll(async () => {
  service = await startLocalService({
    port: 0,
    dynamoEndpoint: process.env.DYNAMODB_ENDPOINT,
    tableName: `ofr-env-${randomBytes(6).toString('hex')}`,
    environment: 'sandbox',
    waitSeconds: 0,
  });
  apiKey = (await onboardOrganization({ name: 'Sandbox Org', kybStatus: 'approved' })).apiKey.apiKey;
});

afterAll(async () => {
  await service?.stop();
  process.env.SERVICE_ENVIRONMENT = 'simulated';
});

describe('sandbox with no off-ramp provider', () => {
  it('publishes offramp as planned, and every off-ramp endpoint answers 501 naming it', async () => {
    const capabilities = await call(service, 'GET', '/capabilities');
    expect(capabilities.body.features.find((f: { feature: string }) => f.feature === 'offramp').status).toBe('planned');
    const body = { idempotencyKey: 'sandbox-offramp-1', amount: { amount: '10', currency: 'USDC' }, beneficiaryId: randomUUID() };
    const answers = [
      await call(service, 'POST', '/treasury/beneficiaries', { apiKey, body: sampleOffRampBeneficiaries[0] }),
      await call(service, 'GET', '/treasury/beneficiaries', { apiKey }),
      await call(service, 'GET', `/treasury/offramp/quote?amount=10&beneficiaryId=${randomUUID()}`, { apiKey }),
      await call(service, 'POST', '/treasury/offramp', { apiKey, body }),
      await call(service, 'GET', '/treasury/offramps', { apiKey }),
      await call(service, 'GET', '/treasury/offramp/some-off-ramp-id', { apiKey }),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(501);
      expect(answer.body).toMatchObject({ error: 'not_implemented', feature: 'offramp' });
    }
  });
});
