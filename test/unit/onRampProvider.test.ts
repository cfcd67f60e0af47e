import { afterEach, describe, expect, it } from 'vitest';
import { reloadConfig } from '#platform/config.ts';
import { onRampProvider, useOnRampProvider } from '#providers/onRamp.ts';
import { SimulatedOnRamps } from '#simulators/onRamp.ts';

/**
 * Outside `simulated` there is no on-ramp adapter yet: the port refuses (every on-ramp handler asks
 * it first, so the endpoint stack answers 501 with the route's feature) instead of inventing a deposit.
 */
afterEach(() => {
  delete process.env.SERVICE_ENVIRONMENT;
  reloadConfig();
  useOnRampProvider(undefined);
});

describe('onRampProvider', () => {
  it('is the simulator on simulated', () => {
    process.env.SERVICE_ENVIRONMENT = 'simulated';
    reloadConfig();
    useOnRampProvider(undefined);
    expect(onRampProvider()).toBeInstanceOf(SimulatedOnRamps);
  });

  it.each(['sandbox', 'production'])('throws ProviderNotConfigured on %s', (environment) => {
    process.env.SERVICE_ENVIRONMENT = environment;
    reloadConfig();
    useOnRampProvider(undefined);
    expect(() => onRampProvider()).toThrow(expect.objectContaining({ name: 'ProviderNotConfigured' }));
  });
});
