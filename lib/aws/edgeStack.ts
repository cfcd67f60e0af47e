import { ArnFormat, Fn, Stack, type StackProps } from 'aws-cdk-lib';
import { CfnLoggingConfiguration, CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { routes } from '#contract/routes.ts';
import type { StageSettings } from './environment.ts';

/** AWS WAF for CloudFront exists only in us-east-1, whatever region the stage is in. */
export const edgeRegion = 'us-east-1';

/**
 * The largest body the edge lets through on any route but POST /batches, whose 1,000 items may reach
 * the service's own 1 MiB bound (docs/decisions/074). It is also how much of a body WAF inspects for
 * CloudFront by default: a larger one cannot be read by the managed rules, so it is refused here.
 */
export const edgeBodyLimitBytes = 16 * 1024;

/** The paths anyone may call without a key (`auth: 'open'` rows), each matched whole or, with a parameter, by its fixed start. */
export function openPaths(): { path: string; match: 'EXACTLY' | 'STARTS_WITH' }[] {
  const paths = new Set(routes.filter((row) => row.auth === 'open').map((row) => row.path));
  return [...paths].sort().map((path) => (path.includes('{') ? { path: path.slice(0, path.indexOf('{')), match: 'STARTS_WITH' as const } : { path, match: 'EXACTLY' as const }));
}

export interface EdgeStackProps extends StackProps {
  settings: StageSettings & { edge: NonNullable<StageSettings['edge']> };
}

const none = [{ priority: 0, type: 'NONE' }];
const uriPath = (searchString: string, positionalConstraint: 'EXACTLY' | 'STARTS_WITH'): CfnWebACL.StatementProperty => ({
  byteMatchStatement: { fieldToMatch: { uriPath: {} }, positionalConstraint, searchString, textTransformations: none },
});
const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({ cloudWatchMetricsEnabled: true, metricName, sampledRequestsEnabled: true });
/** A refusal in the contract's error body (schemas/errors.ts), not WAF's bare 403. */
const refuse = (responseCode: number, customResponseBodyKey: string, responseHeaders: { name: string; value: string }[] = []): CfnWebACL.RuleActionProperty => ({
  block: { customResponse: { responseCode, customResponseBodyKey, ...(responseHeaders.length ? { responseHeaders } : {}) } },
});

/**
 * The stage's AWS WAF web ACL for its CloudFront distribution (docs/decisions/104), in a stack of its
 * own in us-east-1, where WAF for CloudFront lives; the API stack, in the stage's region, reads its ARN
 * through CDK's cross-region references (an SSM parameter written here, read there at deploy time).
 *
 * An HTTP API cannot take WAF, and its stage throttle is one bucket for every caller: without this, one
 * client without a key could flood a route and answer every organization 429. The rules, in order:
 *   1. open routes per client address: /health, /capabilities, /openapi.json and the token pages and
 *      invitation accept, which anyone may call without a key, each address at most a few a second;
 *   2. every route per client address: above what one organization's own buckets allow it;
 *   3. body size: more than 16 KB on any route but POST /batches;
 *   4. AWS's known-bad-inputs and 5. common rule groups (its 8 KB body rule only counted: 3 decides).
 * Rules 1 to 3 answer 429 and 413 in the contract's error body; the managed groups answer WAF's 403.
 * Every request is logged, with its Authorization header redacted.
 */
export class EdgeStack extends Stack {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: EdgeStackProps) {
    super(scope, id, props);
    const { settings } = props;
    const { edge } = settings;
    const metric = (name: string) => `${settings.prefix}-${name}`;
    const open = openPaths();

    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      description: `Payments ${settings.environment}: the edge of the API`,
      defaultAction: { allow: {} },
      visibilityConfig: visibility(metric('edge')),
      customResponseBodies: {
        rate_limited: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ error: 'rate_limited', message: 'Too many requests from this address; retry after 60 seconds.', retryAfterSeconds: 60 }),
        },
        payload_too_large: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ error: 'payload_too_large', message: `Request bodies are limited to ${edgeBodyLimitBytes / 1024} KB on this route.` }),
        },
      },
      rules: [
        {
          name: 'open-routes-per-client',
          priority: 0,
          action: refuse(429, 'rate_limited', [{ name: 'retry-after', value: '60' }]),
          statement: {
            rateBasedStatement: {
              aggregateKeyType: 'IP',
              evaluationWindowSec: 60,
              limit: edge.openRequestsPerMinutePerClient,
              scopeDownStatement: { orStatement: { statements: open.map(({ path, match }) => uriPath(path, match)) } },
            },
          },
          visibilityConfig: visibility(metric('open-routes-per-client')),
        },
        {
          name: 'every-route-per-client',
          priority: 1,
          action: refuse(429, 'rate_limited', [{ name: 'retry-after', value: '60' }]),
          statement: { rateBasedStatement: { aggregateKeyType: 'IP', evaluationWindowSec: 60, limit: edge.requestsPerMinutePerClient } },
          visibilityConfig: visibility(metric('every-route-per-client')),
        },
        {
          name: 'body-size',
          priority: 2,
          action: refuse(413, 'payload_too_large'),
          statement: {
            andStatement: {
              statements: [
                { sizeConstraintStatement: { fieldToMatch: { body: { oversizeHandling: 'MATCH' } }, comparisonOperator: 'GT', size: edgeBodyLimitBytes, textTransformations: none } },
                { notStatement: { statement: uriPath('/batches', 'EXACTLY') } },
              ],
            },
          },
          visibilityConfig: visibility(metric('body-size')),
        },
        {
          name: 'aws-known-bad-inputs',
          priority: 3,
          overrideAction: { none: {} },
          statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesKnownBadInputsRuleSet' } },
          visibilityConfig: visibility(metric('aws-known-bad-inputs')),
        },
        {
          name: 'aws-common',
          priority: 4,
          overrideAction: { none: {} },
          statement: {
            managedRuleGroupStatement: {
              vendorName: 'AWS',
              name: 'AWSManagedRulesCommonRuleSet',
              // Its 8 KB body limit would refuse batches; the body-size rule above sets the limits.
              ruleActionOverrides: [{ name: 'SizeRestrictions_BODY', actionToUse: { count: {} } }],
            },
          },
          visibilityConfig: visibility(metric('aws-common')),
        },
      ],
    });

    // WAF logs to a group whose name starts aws-waf-logs-; it ends with this stack's creation (the
    // first part of its id), so a retained group never stops the stack from being created again.
    const creation = Fn.select(0, Fn.split('-', Fn.select(2, Fn.split('/', this.stackId))));
    const logs = new LogGroup(this, 'WebAclLogs', {
      logGroupName: Fn.join('', [`aws-waf-logs-${settings.prefix}-`, creation]),
      retention: settings.logRetention,
      removalPolicy: settings.logRemovalPolicy,
    });
    new CfnLoggingConfiguration(this, 'WebAclLogging', {
      resourceArn: this.webAcl.attrArn,
      logDestinationConfigs: [this.formatArn({ service: 'logs', resource: 'log-group', resourceName: logs.logGroupName, arnFormat: ArnFormat.COLON_RESOURCE_NAME })],
      // The API key travels in Authorization: never in a log.
      redactedFields: [{ singleHeader: { Name: 'authorization' } }],
    });
  }
}
