import { Logger } from '@aws-lambda-powertools/logger';
import { config } from './config.ts';

/**
 * One structured logger for the process (Powertools). Never log API keys, Authorization
 * headers, request bodies or full account numbers: log ids, routes, statuses and timings.
 */
export const logger = new Logger({
  serviceName: 'payments',
  logLevel: config().LOG_LEVEL,
  persistentKeys: { environment: config().SERVICE_ENVIRONMENT },
});
