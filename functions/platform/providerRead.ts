import { ApiError } from './errors.ts';
import { ProviderUnavailable } from './providerErrors.ts';

/**
 * A read at a wallet or issuer provider. A provider that did not answer (ProviderUnavailable) is
 * 503 `unavailable`, retry with backoff; one not wired on this environment (ProviderNotConfigured)
 * goes on to the endpoint stack, which answers 501 naming the feature. Anything else is a fault.
 */
export async function providerRead<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof ProviderUnavailable) {
      throw new ApiError('unavailable', `The ${what} could not be read from the provider just now; retry with backoff.`);
    }
    throw error;
  }
}
