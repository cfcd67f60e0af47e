import { Logger } from '@aws-lambda-powertools/logger';
import { logSettings } from './config.ts';

/**
 * One structured logger for the process (Powertools). Never log API keys, Authorization
 * headers, request bodies or full account numbers: log ids, routes, statuses and timings.
 */
const { logLevel, environment } = logSettings();

export const logger = new Logger({
  serviceName: 'payments',
  logLevel,
  persistentKeys: { environment },
});
