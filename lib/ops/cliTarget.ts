import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Where the ops CLI points, decided before any module reads the environment (bin/admin.ts):
 *   - a local store (DYNAMODB_ENDPOINT given, or nothing said: the DynamoDB Local of `npm start`):
 *     placeholder credentials when none are set, since DynamoDB Local accepts any;
 *   - a deployed stage (`--stage <environment>`, or WORKFLOW_ARN_PREFIX set): the default AWS
 *     credential chain, untouched (profile, SSO, role, instance metadata); the stage's table
 *     (`payments-<environment>`, lib/aws/environment.ts) and its state machines, in AWS_REGION and
 *     the account of AWS_ACCOUNT_ID, unless TABLE_NAME / WORKFLOW_ARN_PREFIX say otherwise.
 * The stage is `--stage`, else SERVICE_ENVIRONMENT, else the `environment` of cdk.json's context
 * (what `cdk deploy` deploys without `-c environment=…`). Answers the variables to set.
 */
export const serviceEnvironments = ['simulated', 'sandbox', 'production'] as const;
export type ServiceEnvironment = (typeof serviceEnvironments)[number];

export class CliTargetError extends Error {}

export interface CliTarget {
  mode: 'local' | 'aws';
  environment: ServiceEnvironment;
  /** Variables to set (only ones not already set, except SERVICE_ENVIRONMENT which follows --stage). */
  set: Record<string, string>;
}

const projectRoot = path.resolve(import.meta.dirname, '../..');

function contextEnvironment(): string | undefined {
  try {
    const cdk = JSON.parse(readFileSync(path.join(projectRoot, 'cdk.json'), 'utf8')) as { context?: { environment?: unknown } };
    return typeof cdk.context?.environment === 'string' ? cdk.context.environment : undefined;
  } catch {
    return undefined;
  }
}

function isLocalEndpoint(endpoint: string): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(new URL(endpoint).hostname);
  } catch {
    return false;
  }
}

export function cliTarget(env: NodeJS.ProcessEnv, stage: string | undefined): CliTarget {
  const environment = stage ?? env.SERVICE_ENVIRONMENT ?? contextEnvironment() ?? 'simulated';
  if (!(serviceEnvironments as readonly string[]).includes(environment)) {
    throw new CliTargetError(`the stage must be one of ${serviceEnvironments.join(', ')}; got ${JSON.stringify(environment)}`);
  }
  const set: Record<string, string> = { SERVICE_ENVIRONMENT: environment };
  const aws = !env.DYNAMODB_ENDPOINT && (stage !== undefined || env.WORKFLOW_ARN_PREFIX !== undefined);
  if (!aws) {
    const endpoint = env.DYNAMODB_ENDPOINT ?? 'http://127.0.0.1:8000';
    if (!env.DYNAMODB_ENDPOINT) set.DYNAMODB_ENDPOINT = endpoint;
    // DynamoDB Local takes any key; a real endpoint gets the real chain.
    if (isLocalEndpoint(endpoint)) {
      if (!env.AWS_ACCESS_KEY_ID) set.AWS_ACCESS_KEY_ID = 'local';
      if (!env.AWS_SECRET_ACCESS_KEY) set.AWS_SECRET_ACCESS_KEY = 'local';
    }
    return { mode: 'local', environment: environment as ServiceEnvironment, set };
  }
  const prefix = `payments-${environment}`;
  if (!env.TABLE_NAME) set.TABLE_NAME = prefix;
  if (!env.WORKFLOW_ARN_PREFIX) {
    const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
    const account = env.AWS_ACCOUNT_ID ?? env.CDK_DEFAULT_ACCOUNT;
    if (!region || !account) throw new CliTargetError(`--stage ${environment} needs AWS_REGION and AWS_ACCOUNT_ID (or WORKFLOW_ARN_PREFIX)`);
    set.WORKFLOW_ARN_PREFIX = `arn:aws:states:${region}:${account}:stateMachine:${prefix}-`;
  }
  return { mode: 'aws', environment: environment as ServiceEnvironment, set };
}
