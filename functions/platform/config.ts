import * as z from 'zod/mini';
import en from 'zod/v4/locales/en.js';
import { houseAccountsVariable } from '#domain/houseAccounts.ts';

// zod/mini carries no messages: without a locale every built-in issue would read "Invalid input". The
// English one is what classic zod sets, so a 400 names what is wrong in the same words as before
// (docs/decisions/160). Every function reads this module before its first parse. Mini objects are
// never compiled to a function, so decision 126's `jitless` has nothing left to switch off.
z.config(en());

export const serviceEnvironments = ['simulated', 'sandbox', 'production'] as const;
export const logLevels = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT'] as const;

/**
 * Everything the service reads from its environment, parsed once, at its first use: a Lambda's cold
 * import builds neither this schema nor its answer (docs/decisions/129); the first request does.
 * The same variables are set by the CDK stacks on each Lambda and by `npm start` locally.
 */
function buildEnvironmentSchema() {
  return z.object({
    SERVICE_ENVIRONMENT: z._default(z.enum(serviceEnvironments), 'simulated'),
    TABLE_NAME: z._default(z.string().check(z.minLength(1)), 'payments'),
    DYNAMODB_ENDPOINT: z.optional(z.url()),
    AWS_REGION: z._default(z.string().check(z.minLength(1)), 'us-east-1'),
    QUOTE_TTL_SECONDS: z._default(z.coerce.number().check(z.int(), z.positive(), z.maximum(300)), 60),
    /** HMAC key for pagination cursors. Locally generated and kept in the table; in AWS a Secrets Manager secret. */
    CURSOR_SECRET: z.optional(z.string().check(z.minLength(32))),
    CURSOR_SECRET_ARN: z.optional(z.string()),
    /** AWS only: state machine ARN = prefix + workflow name (lib/aws/environment.ts sets it). */
    WORKFLOW_ARN_PREFIX: z.optional(z.string().check(z.regex(/^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]*$/))),
    /**
     * The edge's secret header (functions/platform/edgeOrigin.ts, docs/decisions/104): in AWS the ARN of
     * the stage's secret, given to every endpoint function on `sandbox` and `production`; a literal value
     * for the local stack and the tests. Without either, the local stack checks nothing.
     */
    ORIGIN_SECRET: z.optional(z.string().check(z.minLength(32))),
    ORIGIN_SECRET_ARN: z.optional(z.string()),
    /** Set by Lambda itself: a function of a real stage with no origin secret refuses every request. */
    AWS_LAMBDA_FUNCTION_NAME: z.optional(z.string()),
    /** AWS only: the EventBridge bus the outbox forwarder publishes to. */
    EVENT_BUS_NAME: z.optional(z.string().check(z.minLength(1))),
    LOG_LEVEL: z._default(z.enum(logLevels), 'INFO'),
    /**
     * Caps the seconds a task answers for a Wait state's SecondsPath (functions/platform/workflow.ts
     * workflowWait). Unset in AWS; `npm start` sets 1 and the tests 0, so flows finish in seconds
     * while every Wait still reads its path (docs/decisions/086).
     */
    WAIT_MAX_SECONDS: z.optional(z.coerce.number().check(z.int(), z.minimum(0))),
    /**
     * The sweeper (functions/scheduled/startSweeper.ts) restarts an operation still in its starting
     * status this long after it was committed (its intake and its safety-net event had that long).
     */
    SWEEPER_GRACE_SECONDS: z._default(z.coerce.number().check(z.int(), z.minimum(0)), 120),
    /** Locally: how often the sweeper runs (in AWS the schedule says: lib/aws/sweeperSchedule.ts). */
    SWEEPER_INTERVAL_SECONDS: z._default(z.coerce.number().check(z.int(), z.minimum(1)), 60),
    /**
     * Where e-mail goes (functions/providers/mail.ts): `outbox` writes each message as an `.eml` file
     * into MAIL_OUTBOX_DIR; `ses` sends it through Amazon SES v2. Default: `outbox` in `simulated`,
     * `ses` elsewhere; the AWS stacks set `ses` on every stage with a sender identity and `none` on a
     * `simulated` stack without one, where nothing can be e-mailed (docs/decisions/051, 094).
     */
    MAIL_TRANSPORT: z.optional(z.enum(['outbox', 'ses', 'none'])),
    /** The outbox folder; default `.local/outbox/` in the project root. */
    MAIL_OUTBOX_DIR: z.optional(z.string().check(z.minLength(1))),
    /** With SES: the stage's configuration set every message is sent through (its bounces and complaints come back to this stage). */
    MAIL_CONFIGURATION_SET: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
    /** Sender of every e-mail; with SES it must be a verified identity. */
    MAIL_FROM: z._default(z.string().check(z.minLength(3), z.maxLength(320)), '"Payments" <no-reply@payments.example>'),
    /**
     * Base of links in e-mails (the invitation's accept link). Default `http://127.0.0.1:<PORT>`; the
     * local service sets it to the address it listens on when it is not given.
     */
    PUBLIC_BASE_URL: z.optional(z.url()),
    /** How long an e-mail verification link works (default 24 hours). */
    EMAIL_VERIFICATION_TTL_SECONDS: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(30 * 24 * 3600)), 24 * 3600),
    /** How long an invitation link works (default 7 days). */
    INVITATION_TTL_SECONDS: z._default(z.coerce.number().check(z.int(), z.minimum(60), z.maximum(90 * 24 * 3600)), 7 * 24 * 3600),
    /**
     * AWS only: the KMS key whose data keys encrypt webhook signing secrets (docs/decisions/092).
     * Unset locally: a local AES-256-GCM key kept in the table seals them instead.
     */
    WEBHOOK_KMS_KEY_ID: z.optional(z.string().check(z.minLength(1))),
    /** An endpoint whose every attempt failed this long is disabled (default five days; a test shortens it). */
    WEBHOOK_DISABLE_AFTER_SECONDS: z._default(z.coerce.number().check(z.int(), z.minimum(1)), 5 * 24 * 3600),
    /**
     * The largest statement body answered (default 4,500,000 bytes): a Lambda response carries at
     * most 6 MB, the body JSON-escaped inside it; a larger one is 400 `invalid_period` asking for a
     * shorter period (docs/decisions/096). A test lowers it.
     */
    STATEMENT_MAX_BYTES: z._default(z.coerce.number().check(z.int(), z.minimum(1000), z.maximum(4_500_000)), 4_500_000),
    SERVICE_VERSION: z._default(z.string(), '0.1.0'),
    /**
     * The house bank accounts deposits are wired to: a JSON array of `{currency (USD or EUR),
     * accountName, bankName?, iban?, accountNumber?, bic?, bankAddress?}`, checked here so a bad one
     * stops the service at its first config() (the local launcher's start; a Lambda's first request). Unset: the simulated accounts in `simulated`, none elsewhere
     * (GET /treasury/deposit-instructions answers 501). functions/domain/houseAccounts.ts; docs/decisions/053.
     */
    HOUSE_ACCOUNTS: z.optional(houseAccountsVariable()),
  });
}

let environmentSchema: ReturnType<typeof buildEnvironmentSchema> | undefined;

export type ServiceConfig = z.infer<ReturnType<typeof buildEnvironmentSchema>>;

let cached: ServiceConfig | undefined;

export function config(): ServiceConfig {
  environmentSchema ??= buildEnvironmentSchema();
  cached ??= environmentSchema.parse(process.env);
  return cached;
}

/**
 * The two variables the logger is built with at import (functions/platform/logger.ts), read without
 * the schema so that a cold import does not build it; checked against the same lists, and config()
 * checks them again with the rest at the first request.
 */
export function logSettings(): { logLevel: (typeof logLevels)[number]; environment: (typeof serviceEnvironments)[number] } {
  return { logLevel: oneOf('LOG_LEVEL', logLevels, 'INFO'), environment: oneOf('SERVICE_ENVIRONMENT', serviceEnvironments, 'simulated') };
}

function oneOf<T extends string>(name: string, allowed: readonly T[], unset: T): T {
  const value = process.env[name];
  if (value === undefined) return unset;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`${name} must be one of ${allowed.join(', ')}; it is ${JSON.stringify(value)}`);
}

/** Tests and the local launcher change the environment before handlers run; they call this after. */
export function reloadConfig(): ServiceConfig {
  cached = undefined;
  return config();
}

/** Base of links the service e-mails, without a trailing slash. */
export function publicBaseUrl(): string {
  const configured = config().PUBLIC_BASE_URL ?? `http://127.0.0.1:${process.env.PORT || 3000}`;
  return configured.replace(/\/+$/, '');
}
