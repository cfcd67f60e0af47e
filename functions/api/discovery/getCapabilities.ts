import { endpoint } from '#api/endpoint.ts';
import { ok } from '#platform/response.ts';
import { config } from '#platform/config.ts';
import { getCapabilities } from '#contract/routes.ts';
import { featuresOn } from '#contract/features.ts';
import { corridors } from '#domain/corridors.ts';
import { houseAccountsFor } from '#domain/houseAccounts.ts';

export const handler = endpoint(getCapabilities, async () => {
  const { SERVICE_VERSION, SERVICE_ENVIRONMENT, HOUSE_ACCOUNTS } = config();
  const noHouseAccount = houseAccountsFor(SERVICE_ENVIRONMENT, HOUSE_ACCOUNTS).length === 0;
  return ok({
    version: SERVICE_VERSION,
    environment: SERVICE_ENVIRONMENT,
    // A corridor is listed where it can be paid: here only the simulated rails exist.
    corridors: SERVICE_ENVIRONMENT === 'simulated' ? corridors : [],
    features: featuresOn(
      SERVICE_ENVIRONMENT,
      noHouseAccount ? { 'deposit-instructions': 'No house bank account is configured on this environment (HOUSE_ACCOUNTS).' } : {},
    ),
  });
});
