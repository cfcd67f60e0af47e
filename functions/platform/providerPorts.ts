import type { ProviderNeed } from '#contract/providers.ts';
import { config } from './config.ts';
import { ProviderNotConfigured } from './providerErrors.ts';

/**
 * The provider ports, and how each picks its adapter: one installed by wiring (or by a test, at
 * this port only) wins; otherwise, in `simulated` only, the port's simulator, if the simulated
 * stage's wiring registered one (functions/simulators/install.ts, docs/decisions/121); anywhere
 * else ProviderNotConfigured. No port imports its simulator: a bundle that does not load the
 * simulators' wiring (sandbox, production) holds none. A route declares the ports it needs on its
 * row (functions/contract/routes.ts `needs`) and the endpoint checks them before the handler runs
 * (501 naming the feature), without loading any provider's code.
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
const simulators = new Map<ProviderNeed, () => unknown>();
const simulated = new Map<ProviderNeed, unknown>();

/** The simulator that answers for this port here: only in `simulated`, and only where the wiring registered one. */
function simulatorFor(need: ProviderNeed): (() => unknown) | undefined {
  return config().SERVICE_ENVIRONMENT === 'simulated' ? simulators.get(need) : undefined;
}

/** ProviderNotConfigured unless the port has an adapter here (installed, or this environment's simulator). */
export function requireProvider(need: ProviderNeed): void {
  if (installed.has(need) || simulatorFor(need)) return;
  const environment = config().SERVICE_ENVIRONMENT;
  throw new ProviderNotConfigured(`No ${described[need]} is configured for the ${environment} environment.`);
}

export interface ProviderPort<T> {
  /** The adapter in use; ProviderNotConfigured when the environment has none. */
  get(): T;
  /** Installs an adapter; `undefined` goes back to the environment's default. */
  use(adapter?: T): void;
  /**
   * Registers the simulator that answers in `simulated` when nothing is installed (made once, on
   * first use). Called by the simulators' wiring only (functions/simulators/install.ts).
   */
  simulateWith(make: () => T): void;
}

export function providerPort<T>(need: ProviderNeed): ProviderPort<T> {
  return {
    get() {
      if (installed.has(need)) return installed.get(need) as T;
      requireProvider(need);
      if (!simulated.has(need)) simulated.set(need, simulatorFor(need)!());
      return simulated.get(need) as T;
    },
    use(adapter) {
      if (adapter === undefined) installed.delete(need);
      else installed.set(need, adapter);
    },
    simulateWith(make) {
      simulators.set(need, make);
      simulated.delete(need);
    },
  };
}
