import { config } from './config.ts';
import { ApiError } from './errors.ts';

/**
 * Sandbox tools (simulate-wire, simulate-payment, sandbox-prefill, topup-eurc) fake a payer or a
 * balance: they are live on `simulated` and `sandbox` and answer 501 on `production`, whatever
 * else is configured there. Checked by the endpoint for a row marked `sandboxOnly`, before its provider needs.
 */
export function requireSandbox(): void {
  const environment = config().SERVICE_ENVIRONMENT;
  if (environment === 'simulated' || environment === 'sandbox') return;
  throw new ApiError('not_implemented', `Sandbox tools are not available on ${environment}: they would fake money that does not exist.`, {
    feature: 'sandbox',
  });
}
