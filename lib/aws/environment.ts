import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { houseAccountList } from '../../functions/domain/houseAccounts.ts';

/**
 * The stage a deployment is for, from CDK context (`cdk deploy -c environment=sandbox`), and the
 * few settings that differ between stages. Everything else is the same on every stage, so what
 * `simulated` proves is what `production` runs.
 */
export const serviceEnvironments = ['simulated', 'sandbox', 'production'] as const;
export type ServiceEnvironment = (typeof serviceEnvironments)[number];

export function isServiceEnvironment(value: unknown): value is ServiceEnvironment {
  return typeof value === 'string' && (serviceEnvironments as readonly string[]).includes(value);
}

/** A typo must not deploy a stage nobody asked for: anything outside the list stops synth. */
export function environmentFromContext(scope: Construct): ServiceEnvironment {
  const value: unknown = scope.node.tryGetContext('environment') ?? 'simulated';
  if (!isServiceEnvironment(value)) {
    throw new Error(`CDK context "environment" must be one of ${serviceEnvironments.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return value;
}

export interface StageSettings {
  environment: ServiceEnvironment;
  /** Prefix of every named resource: `payments-<environment>`, so stages can share an account. */
  prefix: string;
  /** `simulated` holds nothing of value and is torn down freely; real stages keep their data. */
  stateful: { removalPolicy: RemovalPolicy; deletionProtection: boolean };
  logRetention: RetentionDays;
  logRemovalPolicy: RemovalPolicy;
  /** Stage-wide default throttling of the HTTP API, before any per-organization bucket. */
  apiThrottle: { rateLimit: number; burstLimit: number };
  /**
   * The edge (lib/aws/edgeStack.ts, docs/decisions/104): CloudFront and AWS WAF in front of the HTTP API,
   * with these per-client-address limits. `simulated` has none: its stage is the bare HTTP API, holding
   * no money and no real customer, and a test of the service rather than of the edge.
   */
  edge?: { requestsPerMinutePerClient: number; openRequestsPerMinutePerClient: number };
  /** HOUSE_ACCOUNTS for every function: the house bank accounts deposits are wired to (JSON), when configured. */
  houseAccounts?: string;
  /** The SES identity invitations are sent from (required outside `simulated`). */
  senderIdentity?: SenderIdentity;
}

/** The SES configuration set every message of a stage is sent through: its bounces and complaints reach the service. */
export function mailConfigurationSetName(settings: StageSettings): string {
  return settings.prefix;
}

/** What every function is told about mail: `ses` with a sender identity, `none` (nothing can be e-mailed) without one. */
export function mailTransportOf(settings: StageSettings): 'ses' | 'none' {
  return settings.senderIdentity ? 'ses' : 'none';
}

/**
 * What a function that e-mails gets (a route row or event rule that `sendsMail`): ses:SendEmail as the
 * stage's identity through its configuration set only, named by ARN (the identity is the account's,
 * made once per account and region, docs/deployment.md; the API stack makes the set), the sender
 * address, the set each message names, and the base of links.
 * Nothing without an identity: such a stack sends no mail.
 */
export function grantMailSending(fn: LambdaFunction, settings: StageSettings, publicBaseUrl: string): void {
  const identity = settings.senderIdentity;
  if (!identity) return;
  const stack = Stack.of(fn);
  const mailFrom = (stack.node.tryGetContext('mailFrom') as string | undefined)
    ?? `"Payments" <${identity.kind === 'address' ? identity.address : `no-reply@${identity.domain}`}>`;
  fn.addToRolePolicy(new PolicyStatement({
    actions: ['ses:SendEmail', 'ses:SendRawEmail'],
    resources: [
      stack.formatArn({ service: 'ses', resource: 'identity', resourceName: identity.kind === 'domain' ? identity.domain : identity.address }),
      stack.formatArn({ service: 'ses', resource: 'configuration-set', resourceName: mailConfigurationSetName(settings) }),
    ],
  }));
  fn.addEnvironment('MAIL_FROM', mailFrom);
  fn.addEnvironment('MAIL_CONFIGURATION_SET', mailConfigurationSetName(settings));
  fn.addEnvironment('PUBLIC_BASE_URL', publicBaseUrl);
}

/**
 * The house bank accounts of a stage, from CDK context (`-c houseAccounts='[{"currency":"USD",...}]'`
 * or the `context` block of cdk.json): checked at synth with the same schema the functions read them
 * with, so a malformed list stops the deploy instead of answering 500 later. Not secrets: they are
 * what GET /treasury/deposit-instructions shows every organization.
 */
export function houseAccountsFromContext(scope: Construct): string | undefined {
  const value: unknown = scope.node.tryGetContext('houseAccounts');
  if (value === undefined) return undefined;
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error('CDK context "houseAccounts" must be a JSON array of house bank accounts');
    }
  }
  const checked = houseAccountList().safeParse(parsed);
  if (!checked.success) throw new Error(`CDK context "houseAccounts" is not valid: ${checked.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`);
  return JSON.stringify(parsed);
}

export function stageSettings(environment: ServiceEnvironment): StageSettings {
  const disposable = environment === 'simulated';
  return {
    environment,
    prefix: `payments-${environment}`,
    stateful: disposable
      ? { removalPolicy: RemovalPolicy.DESTROY, deletionProtection: false }
      : { removalPolicy: RemovalPolicy.RETAIN, deletionProtection: true },
    // Production logs are evidence for disputes and audits; a simulation's are not.
    logRetention: environment === 'production' ? RetentionDays.ONE_YEAR : RetentionDays.ONE_MONTH,
    logRemovalPolicy: disposable ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
    // The per-organization buckets (functions/domain/rateLimit.ts) are the contract's limits; this is
    // only a ceiling that protects the account's Lambda concurrency from a flood.
    apiThrottle: environment === 'production' ? { rateLimit: 500, burstLimit: 1000 } : { rateLimit: 100, burstLimit: 200 },
    // Every route: above what one organization's default buckets allow (about 65 a second sustained,
    // functions/domain/rateLimit.ts), so only a flood meets it. Open routes (no key, so no bucket): a
    // few a second from one address is more than any person or monitor needs.
    ...(disposable ? {} : { edge: { requestsPerMinutePerClient: 6000, openRequestsPerMinutePerClient: 300 } }),
  };
}

/**
 * State machine names are fixed (`payments-<environment>-<workflow>`), so any stack can name a
 * state machine's ARN without a cross-stack reference: the API functions find theirs as
 * WORKFLOW_ARN_PREFIX + workflow name, and IAM grants name the exact ARNs.
 */
export function stateMachineName(settings: StageSettings, workflow: string): string {
  return `${settings.prefix}-${workflow}`;
}

/** `arn:<partition>:states:<region>:<account>:stateMachine:payments-<environment>-` in the stack's own account and region. */
export function workflowArnPrefix(scope: Construct, settings: StageSettings): string {
  return stateMachineArn(scope, settings, '');
}

export function stateMachineArn(scope: Construct, settings: StageSettings, workflow: string): string {
  return Stack.of(scope).formatArn({
    service: 'states',
    resource: 'stateMachine',
    resourceName: stateMachineName(settings, workflow),
    arnFormat: ArnFormat.COLON_RESOURCE_NAME,
  });
}

/**
 * The account and region the stacks are for: `-c account=<12 digits> -c region=<region>` as
 * docs/deployment.md tells a deployer, else what the CLI found in the caller's credentials
 * (CDK_DEFAULT_ACCOUNT / CDK_DEFAULT_REGION). Named explicitly, every ARN, acknowledgement and
 * validator sees the same concrete values the deploy will.
 */
export function targetFromContext(scope: Construct): { account?: string; region?: string } {
  const account: unknown = scope.node.tryGetContext('account') ?? process.env.CDK_DEFAULT_ACCOUNT;
  const region: unknown = scope.node.tryGetContext('region') ?? process.env.CDK_DEFAULT_REGION;
  if (account !== undefined && !(typeof account === 'string' && /^\d{12}$/.test(account))) {
    throw new Error(`CDK context "account" must be a 12-digit AWS account id; got ${JSON.stringify(account)}`);
  }
  if (region !== undefined && !(typeof region === 'string' && /^[a-z]{2}(-[a-z]+)+-\d$/.test(region))) {
    throw new Error(`CDK context "region" must be an AWS region such as eu-west-1; got ${JSON.stringify(region)}`);
  }
  return { ...(account ? { account } : {}), ...(region ? { region } : {}) };
}

/** The SES identity invitations are sent from: a domain (DKIM-verified) or one address. */
export type SenderIdentity = { kind: 'domain'; domain: string } | { kind: 'address'; address: string };

/**
 * `-c senderIdentity=payments.example.com` (a domain) or `-c senderIdentity=no-reply@example.com`
 * (one address). Required on `sandbox` and `production`, where invitations are real mail; optional
 * on `simulated`, whose stack then sends no mail (invitations answer emailDelivered false).
 */
export function senderIdentityFromContext(scope: Construct, environment: ServiceEnvironment): SenderIdentity | undefined {
  const value: unknown = scope.node.tryGetContext('senderIdentity');
  if (value === undefined || value === '') {
    if (environment === 'simulated') return undefined;
    throw new Error(`CDK context "senderIdentity" is required on ${environment}: the SES identity invitations are sent from, `
      + 'a domain (-c senderIdentity=payments.example.com) or one address (-c senderIdentity=no-reply@example.com)');
  }
  if (typeof value !== 'string') throw new Error('CDK context "senderIdentity" must be a domain or an e-mail address');
  if (/^[^@\s]+@[a-z0-9.-]+\.[a-z]{2,}$/i.test(value)) return { kind: 'address', address: value };
  if (/^([a-z0-9-]+\.)+[a-z]{2,}$/i.test(value)) return { kind: 'domain', domain: value.toLowerCase() };
  throw new Error(`CDK context "senderIdentity" must be a domain or an e-mail address; got ${JSON.stringify(value)}`);
}
