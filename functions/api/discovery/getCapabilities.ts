import { endpoint, ok } from '#platform/endpoint.ts';
import { config } from '#platform/config.ts';
import { getCapabilities } from '#wiring/routes.ts';
import { featuresOn } from '#wiring/features.ts';
import { corridors } from '#core/corridors.ts';

export const handler = endpoint(getCapabilities, async () => {
  const { SERVICE_VERSION, SERVICE_ENVIRONMENT } = config();
  return ok({
    version: SERVICE_VERSION,
    environment: SERVICE_ENVIRONMENT,
    // A corridor is listed where it can be paid: here only the simulated rails exist.
    corridors: SERVICE_ENVIRONMENT === 'simulated' ? corridors : [],
    features: featuresOn(SERVICE_ENVIRONMENT),
  });
});
