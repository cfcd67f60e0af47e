import { afterEach, describe, expect, it } from 'vitest';
import { logSettings, reloadConfig } from '#platform/config.ts';

/** The logger's two variables are read at import without the schema (docs/decisions/129): checked all the same. */
const saved = { LOG_LEVEL: process.env.LOG_LEVEL, SERVICE_ENVIRONMENT: process.env.SERVICE_ENVIRONMENT };

afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  reloadConfig();
});

describe('logSettings', () => {
  it('takes INFO and simulated when the variables are unset, as the schema defaults them', () => {
    delete process.env.LOG_LEVEL;
    delete process.env.SERVICE_ENVIRONMENT;
    expect(logSettings()).toEqual({ logLevel: 'INFO', environment: 'simulated' });
    expect(reloadConfig()).toMatchObject({ LOG_LEVEL: 'INFO', SERVICE_ENVIRONMENT: 'simulated' });
  });

  it('reads the values the schema accepts', () => {
    process.env.LOG_LEVEL = 'WARN';
    process.env.SERVICE_ENVIRONMENT = 'sandbox';
    expect(logSettings()).toEqual({ logLevel: 'WARN', environment: 'sandbox' });
  });

  it('refuses a value outside the list, naming the variable and what it may be', () => {
    process.env.LOG_LEVEL = 'verbose';
    expect(() => logSettings()).toThrow('LOG_LEVEL must be one of DEBUG, INFO, WARN, ERROR, SILENT; it is "verbose"');
    expect(() => reloadConfig()).toThrow(/LOG_LEVEL/);
    process.env.LOG_LEVEL = 'INFO';
    process.env.SERVICE_ENVIRONMENT = 'staging';
    expect(() => logSettings()).toThrow(/SERVICE_ENVIRONMENT must be one of simulated, sandbox, production/);
  });
});
