import { endpoint, ok } from '#platform/endpoint.ts';
import { config } from '#platform/config.ts';
import { getCapabilities } from '#wiring/routes.ts';
import { features } from '#wiring/features.ts';
import { corridors } from '#core/corridors.ts';

export const handler = endpoint(getCapabilities, async () => {
  const { SERVICE_VERSION, SERVICE_ENVIRONMENT } = config();
  return ok({
    version: SERVICE_VERSION,
    environment: SERVICE_ENVIRONMENT,
    corridors: corridors.map(({ from, to, destinationCountry, ownedRail, instant }) => ({ from, to, destinationCountry, ownedRail, instant })),
    features: Object.entries(features).map(([feature, definition]) => ({ feature, ...definition })),
  });
});
