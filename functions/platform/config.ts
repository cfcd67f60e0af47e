import { z } from 'zod';

/**
 * Everything the service reads from its environment, parsed once.
 * The same variables are set by the CDK stacks on each Lambda and by `npm start` locally.
 */
const environmentSchema = z.object({
  SERVICE_ENVIRONMENT: z.enum(['simulated', 'sandbox', 'production']).default('simulated'),
  TABLE_NAME: z.string().min(1).default('payments'),
  DYNAMODB_ENDPOINT: z.string().url().optional(),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  QUOTE_TTL_SECONDS: z.coerce.number().int().positive().max(300).default(60),
  /** HMAC key for pagination cursors. Locally generated and kept in the table; in AWS a Secrets Manager secret. */
  CURSOR_SECRET: z.string().min(32).optional(),
  CURSOR_SECRET_ARN: z.string().optional(),
  /** AWS only: state machine ARN = prefix + workflow name (lib/aws/environment.ts sets it). */
  WORKFLOW_ARN_PREFIX: z
    .string()
    .regex(/^arn:aws[a-z-]*:states:[a-z0-9-]+:\d{12}:stateMachine:[A-Za-z0-9_-]*$/)
    .optional(),
  /** AWS only: the EventBridge bus the outbox forwarder publishes to. */
  EVENT_BUS_NAME: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT']).default('INFO'),
  SERVICE_VERSION: z.string().default('0.1.0'),
});

export type ServiceConfig = z.infer<typeof environmentSchema>;

let cached: ServiceConfig | undefined;

export function config(): ServiceConfig {
  cached ??= environmentSchema.parse(process.env);
  return cached;
}

/** Tests and the local launcher change the environment before handlers run; they call this after. */
export function reloadConfig(): ServiceConfig {
  cached = undefined;
  return config();
}
