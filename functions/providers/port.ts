import { config } from '#platform/config.ts';
import { ProviderNotConfigured } from '#platform/providerErrors.ts';

/**
 * How every provider port picks its adapter: one installed by wiring (or by a test, at this port
 * only) wins; otherwise the environment's default, which exists only in `simulated` (the port's
 * simulator, made once); anywhere else ProviderNotConfigured, which the endpoint answers with the
 * contract's error before the handler runs.
 */
export interface ProviderPort<T> {
  /** The adapter in use; ProviderNotConfigured when the environment has none. */
  get(): T;
  /** Installs an adapter; `undefined` goes back to the environment's default. */
  use(adapter?: T): void;
}

export function providerPort<T>(what: string, simulated: () => T): ProviderPort<T> {
  let installed: T | undefined;
  return {
    get() {
      if (installed) return installed;
      const environment = config().SERVICE_ENVIRONMENT;
      if (environment !== 'simulated') throw new ProviderNotConfigured(`No ${what} is configured for the ${environment} environment.`);
      installed = simulated();
      return installed;
    },
    use(adapter) {
      installed = adapter;
    },
  };
}
