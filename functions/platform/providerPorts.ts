import type { ProviderNeed } from '#contract/providers.ts';
import { config } from './config.ts';
import { ProviderNotConfigured } from './providerErrors.ts';

/**
 * The provider ports, and how each picks its adapter: one installed by wiring (or by a test, at
 * this port only) wins; otherwise the environment's default, which exists only in `simulated` (the
 * port's simulator, made once); anywhere else ProviderNotConfigured. A route declares the ports it
 * needs on its row (functions/contract/routes.ts `needs`) and the endpoint checks them before the
 * handler runs (501 naming the feature), without loading any provider's code.
 */

const described: Record<ProviderNeed, string> = {
  custody: 'custody provider',
  payout: 'payout provider',
  chain: 'chain-send provider',
  gasOracle: 'gas oracle',
  fx: 'FX rate provider',
  issuer: 'stablecoin issuer provider',
  onRamp: 'on-ramp (collection and issuance) provider',
  offRamp: 'off-ramp provider',
};

const installed = new Map<ProviderNeed, unknown>();

/** ProviderNotConfigured unless the port has an adapter here (installed, or this environment's simulator). */
export function requireProvider(need: ProviderNeed): void {
  if (installed.has(need)) return;
  const environment = config().SERVICE_ENVIRONMENT;
  if (environment !== 'simulated') throw new ProviderNotConfigured(`No ${described[need]} is configured for the ${environment} environment.`);
}

export interface ProviderPort<T> {
  /** The adapter in use; ProviderNotConfigured when the environment has none. */
  get(): T;
  /** Installs an adapter; `undefined` goes back to the environment's default. */
  use(adapter?: T): void;
}

export function providerPort<T>(need: ProviderNeed, simulated: () => T): ProviderPort<T> {
  return {
    get() {
      if (installed.has(need)) return installed.get(need) as T;
      requireProvider(need);
      const made = simulated();
      installed.set(need, made);
      return made;
    },
    use(adapter) {
      if (adapter === undefined) installed.delete(need);
      else installed.set(need, adapter);
    },
  };
}
