import { CfnOutput, Duration, Fn, RemovalPolicy, SecretValue, Stack, Token, Validations, type StackProps } from 'aws-cdk-lib';
import { AllowedMethods, CachePolicy, Distribution, HttpVersion, OriginProtocolPolicy, OriginRequestPolicy, OriginSslPolicy, PriceClass, SecurityPolicyProtocol, SSLMethod, ViewerProtocolPolicy } from 'aws-cdk-lib/aws-cloudfront';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { HttpOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpStage, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import { CfnPermission } from 'aws-cdk-lib/aws-lambda';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ConfigurationSet, ConfigurationSetEventDestination, EmailSendingEvent, EventDestination } from 'aws-cdk-lib/aws-ses';
import { EventBus } from 'aws-cdk-lib/aws-events';
import { routes, type RouteDefinition } from '#contract/routes.ts';
import type { LambdaBundle } from '../build/lambdaBundles.ts';
import { apiAreaOf, apiAreas, type ApiArea } from './apiAreas.ts';
import { ApiAreaStack } from './apiAreaStack.ts';
import { mailConfigurationSetName } from './environment.ts';
import type { EdgeStack } from './edgeStack.ts';
import { edgeOriginHeader } from '#platform/edgeOrigin.ts';
import { entryName, unmatchedHandler } from './handlers.ts';
import { ServiceFunction, type FunctionContext } from './serviceFunction.ts';

/**
 * `-c edgeDomain=api.payments.example.com -c edgeCertificateArn=arn:aws:acm:us-east-1:…` (both or
 * neither): the stage's API served at a domain of the deployer's, with an ACM certificate that covers
 * it, in us-east-1 as CloudFront requires. The deployer points the domain (CNAME or alias) at the
 * distribution (docs/deployment.md).
 */
export function edgeDomainFromContext(scope: Construct): { domain: string; certificateArn: string } | undefined {
  const domain: unknown = scope.node.tryGetContext('edgeDomain');
  const certificateArn: unknown = scope.node.tryGetContext('edgeCertificateArn');
  if (domain === undefined && certificateArn === undefined) return undefined;
  if (typeof domain !== 'string' || !/^([a-z0-9-]+\.)+[a-z]{2,}$/i.test(domain)) {
    throw new Error(`CDK context "edgeDomain" must be a domain name such as api.payments.example.com, given with "edgeCertificateArn"; got ${JSON.stringify(domain)}`);
  }
  if (typeof certificateArn !== 'string' || !/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[A-Za-z0-9-]+$/.test(certificateArn)) {
    throw new Error(`CDK context "edgeCertificateArn" must be the ARN of an ACM certificate in us-east-1 (CloudFront reads certificates only there); got ${JSON.stringify(certificateArn)}`);
  }
  return { domain: domain.toLowerCase(), certificateArn };
}

/** `treasury` → `TreasuryEndpoints`: the construct id of an area's nested stack (and so of its template file). */
export function areaStackId(area: ApiArea): string {
  return `${area.charAt(0).toUpperCase()}${area.slice(1)}Endpoints`;
}

export interface ApiStackProps extends StackProps {
  context: FunctionContext;
  bundleOf: (entry: string) => LambdaBundle;
  /** The stage's WAF web ACL (us-east-1), on the stages with an edge: the API is then served through CloudFront. */
  edge?: EdgeStack;
}

/**
 * The HTTP API: one route per row of the route table (functions/contract/routes.ts) and one Lambda per
 * distinct handler module, so every unbuilt endpoint shares the one notImplemented function.
 *
 * This stack holds what the API shares: the HTTP API, its stage and access logs, the unmatched-route
 * function behind `$default`, the SES configuration set. The endpoint functions and their routes sit in one
 * nested stack per area of the route table (lib/aws/apiAreas.ts, lib/aws/apiAreaStack.ts): a stack
 * holds at most 500 resources, and one of all the endpoints would stop growing near 70
 * (docs/decisions/098).
 *
 * State machines are named, not referenced (lib/aws/environment.ts): the API grants on their exact
 * ARNs without importing anything from the workflow stack, so either can be updated alone.
 */
export class ApiStack extends Stack {
  readonly api: HttpApi;
  /** Every endpoint function by handler module, whichever nested stack it sits in. */
  readonly functions = new Map<string, ServiceFunction>();
  /** The nested stack of each area that has routes. */
  readonly areas = new Map<ApiArea, ApiAreaStack>();
  /** Base of links in e-mails: the stage's public address, unless `-c publicBaseUrl=...` names another. */
  readonly publicBaseUrl: string;
  /** On a stage with an edge: CloudFront in front of the API, and the secret of the header it adds. */
  readonly distribution?: Distribution;
  readonly originSecret?: Secret;

  constructor(scope: Construct, id: string, props: ApiStackProps) {
    super(scope, id, props);
    const { settings } = props.context;

    // Requests that match no row: its function is part of the API itself, not of an area.
    const unmatched = new ServiceFunction(this, entryName(unmatchedHandler), {
      context: props.context,
      bundle: props.bundleOf(unmatchedHandler),
      table: 'none',
    });
    this.functions.set(unmatchedHandler, unmatched);
    this.api = new HttpApi(this, 'Api', {
      apiName: settings.prefix,
      description: `Cross-border payments API (${settings.environment})`,
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration(`${entryName(unmatchedHandler)}Integration`, unmatched.function),
    });

    Validations.of(this.api).acknowledge({
      id: 'cdk-validator-cfnguard::api_gw_v2_authorization_type_configured_check',
      reason: 'Only the $default route sits here: it answers requests that match no endpoint with 404/405 and reads nothing.',
    }, {
      id: 'AwsSolutions-APIG4',
      reason: 'Only the $default route sits here: it answers requests that match no endpoint with 404/405 and reads nothing.',
    });
    if (props.edge) {
      const { distribution, originSecret } = this.addEdge(props.edge);
      this.distribution = distribution;
      this.originSecret = originSecret;
    }
    const customDomain = props.edge ? edgeDomainFromContext(this) : undefined;
    this.publicBaseUrl = this.distribution
      ? this.publicAddress(this.distribution.distributionDomainName, customDomain ? `https://${customDomain.domain}` : Fn.join('', ['https://', this.distribution.distributionDomainName]))
      : this.publicAddress(this.api.apiEndpoint, this.api.apiEndpoint);

    // Each handler module's rows, grouped by the area of the module (its first row's).
    const rowsByHandler = new Map<string, RouteDefinition[]>();
    for (const row of routes) rowsByHandler.set(row.handler, [...(rowsByHandler.get(row.handler) ?? []), row]);
    const rowsByArea = new Map<ApiArea, Map<string, RouteDefinition[]>>();
    for (const [handler, rows] of rowsByHandler) {
      const area = apiAreaOf(rows);
      rowsByArea.set(area, (rowsByArea.get(area) ?? new Map<string, RouteDefinition[]>()).set(handler, rows));
    }
    for (const area of apiAreas) {
      const areaRows = rowsByArea.get(area);
      if (!areaRows) continue;
      const nested = new ApiAreaStack(this, areaStackId(area), {
        area,
        context: props.context,
        bundleOf: props.bundleOf,
        httpApi: this.api,
        rowsByHandler: areaRows,
        publicBaseUrl: this.publicBaseUrl,
        ...(this.originSecret ? { originSecret: this.originSecret } : {}),
        description: `Payments ${settings.environment}: ${area} endpoints of the HTTP API`,
      });
      this.areas.set(area, nested);
      for (const [handler, built] of nested.functions) this.functions.set(handler, built);
    }
    this.addMail(settings);

    const accessLogs = new LogGroup(this, 'AccessLogs', { retention: settings.logRetention, removalPolicy: settings.logRemovalPolicy });
    const stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: settings.apiThrottle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // HTTP API context variables only; no header is logged, so no key or Authorization value can leak.
        format: AccessLogFormat.custom(JSON.stringify({
          requestId: '$context.requestId',
          ip: '$context.identity.sourceIp',
          requestTime: '$context.requestTime',
          routeKey: '$context.routeKey',
          status: '$context.status',
          protocol: '$context.protocol',
          responseLength: '$context.responseLength',
          responseLatency: '$context.responseLatency',
          integrationLatency: '$context.integrationLatency',
          integrationError: '$context.integrationErrorMessage',
        })),
      },
    });

    // API Gateway may invoke the functions only on behalf of this account (the source ARN names the
    // API, this names its owner: the confused-deputy guard Control Tower's CT.LAMBDA.PR.2 asks for).
    for (const child of this.node.findAll()) {
      if (child instanceof CfnPermission && child.principal === 'apigateway.amazonaws.com') child.sourceAccount ??= Stack.of(child).account;
    }
    if (Token.isUnresolved(this.account)) {
      // Only an environment-agnostic synth (`npm run synth` with no account) gets here: the check
      // reads a literal account, which a deploy always has (-c account, docs/deployment.md).
      Validations.of(this).acknowledge({
        id: 'cdk-validator-cfnguard::lambda_function_public_access_prohibited_check',
        reason: 'No target account in this synth: the invoke permissions name the source ARN of the API, and their source account once synthesized for one.',
      });
    }

    new CfnOutput(this, 'ApiUrl', {
      value: stage.url,
      description: this.distribution ? 'The HTTP API itself: refuses every request that did not come through PublicUrl (403)' : 'Where the API is served',
    });
    if (this.distribution) {
      new CfnOutput(this, 'PublicUrl', { value: this.publicBaseUrlOfEdge(customDomain), description: 'Where the API is served: CloudFront and AWS WAF' });
      new CfnOutput(this, 'EdgeDomainName', { value: this.distribution.distributionDomainName, description: 'The distribution: where a custom domain points (CNAME or alias)' });
    }
  }

  /**
   * The edge (docs/decisions/104): a CloudFront distribution with the stage's WAF web ACL in front of the
   * HTTP API, caching nothing and passing every method, header (Authorization included, Host excepted:
   * API Gateway routes on its own), cookie and query string. It adds to every request it sends the API
   * a header holding a generated secret, read from Secrets Manager at deploy time (a dynamic reference:
   * the value is in no template); every endpoint function is given the secret's ARN and refuses a
   * request without it (functions/platform/edgeOrigin.ts), so the execute-api address leads nowhere.
   * `-c originSecretVersion=<VersionId>` pins the version CloudFront sends, which is how a rotation
   * reaches it (docs/deployment.md: the functions accept the current and the previous value).
   */
  private addEdge(edge: EdgeStack): { distribution: Distribution; originSecret: Secret } {
    const originSecret = new Secret(this, 'OriginSecret', {
      description: `The header CloudFront adds to every request it sends the HTTP API (${edgeOriginHeader}); the endpoints refuse a request without it`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true, includeSpace: false },
      // Stateless: a new stack makes a new secret, and CloudFront and the functions take it together.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    Validations.of(originSecret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason: 'CloudFront holds the value in its origin configuration: a scheduled rotation that did not also update the '
        + 'distribution would refuse every request. It is rotated by hand in three steps (docs/deployment.md), the functions '
        + 'accepting the current and the previous value meanwhile.',
    });
    const versionId: unknown = this.node.tryGetContext('originSecretVersion');
    if (versionId !== undefined && !(typeof versionId === 'string' && /^[A-Za-z0-9-]{32,64}$/.test(versionId))) {
      throw new Error(`CDK context "originSecretVersion" must be a Secrets Manager VersionId; got ${JSON.stringify(versionId)}`);
    }
    const headerValue = SecretValue.secretsManager(originSecret.secretArn, versionId ? { versionId } : {});

    const customDomain = edgeDomainFromContext(this);
    const distribution = new Distribution(this, 'Edge', {
      comment: `Payments ${this.stackName}: the API behind AWS WAF`,
      // With a domain of the deployer's (and its ACM certificate in us-east-1), viewers need TLS 1.2 and SNI;
      // without one, the *.cloudfront.net certificate, whose security policy CloudFront fixes.
      ...(customDomain ? {
        domainNames: [customDomain.domain],
        certificate: Certificate.fromCertificateArn(this, 'EdgeCertificate', customDomain.certificateArn),
        minimumProtocolVersion: SecurityPolicyProtocol.TLS_V1_2_2021,
        sslSupportMethod: SSLMethod.SNI,
      } : {}),
      webAclId: edge.webAcl.attrArn,
      httpVersion: HttpVersion.HTTP2_AND_3,
      priceClass: PriceClass.PRICE_CLASS_ALL,
      enableIpv6: true,
      defaultBehavior: {
        origin: new HttpOrigin(Fn.join('', [this.api.apiId, '.execute-api.', this.region, '.', this.urlSuffix]), {
          protocolPolicy: OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [OriginSslPolicy.TLS_V1_2],
          customHeaders: { [edgeOriginHeader]: headerValue.unsafeUnwrap() },
          readTimeout: Duration.seconds(30),
        }),
        // A key sent over plain HTTP is already spent: refused, not redirected.
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_ALL,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        originRequestPolicy: OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
    });
    this.acknowledgeEdge(distribution, customDomain !== undefined);
    return { distribution, originSecret };
  }

  /** What cdk-nag and Control Tower ask of a CloudFront distribution that an API's edge answers otherwise. */
  private acknowledgeEdge(distribution: Distribution, customDomain: boolean): void {
    const logged = 'AWS WAF logs every request that reaches the distribution, allowed or blocked (client address, URI, headers '
      + 'with Authorization redacted, the rule that decided: lib/aws/edgeStack.ts), and the HTTP API stage logs every request that '
      + 'reaches the origin; with caching off, CloudFront\'s own log would add only the edge location, in an S3 bucket of its own.';
    Validations.of(distribution).acknowledge(
      { id: 'AwsSolutions-CFR3', reason: logged },
      { id: 'cdk-validator-cfnguard::cloudfront_access_logs_enabled_check', reason: logged },
      {
        id: 'cdk-validator-cfnguard::cloudfront_default_root_object_configured_check',
        reason: 'An API, not a site: GET / is answered by the unmatched route (404 with the contract\'s body); a default root object would rewrite it to an object no route serves.',
      },
      {
        id: 'cdk-validator-cfnguard::cloudfront_origin_failover_enabled_check',
        reason: 'One origin, the stage\'s HTTP API in its region: a failover origin would be the whole stage (table included) in a second region, which the '
          + 'service does not have; and CloudFront fails over only GET, HEAD and OPTIONS, never the POSTs that move money.',
      },
      {
        id: 'AwsSolutions-CFR1',
        reason: 'Integrators call from wherever they operate; who may receive money is screened on every payment (docs/decisions/043, 078), not by the caller\'s address.',
      },
    );
    if (!customDomain) {
      const noDomain = 'No custom domain was given (-c edgeDomain, -c edgeCertificateArn: docs/deployment.md): the distribution serves *.cloudfront.net with '
        + 'CloudFront\'s own certificate, whose security policy CloudFront fixes at TLSv1 with SNI optional; clients negotiate TLS 1.2 or 1.3. '
        + 'With a domain, the distribution requires TLS 1.2 (TLSv1.2_2021) and SNI, and these are not acknowledged.';
      Validations.of(distribution).acknowledge(
        { id: 'AwsSolutions-CFR4', reason: noDomain },
        { id: 'cdk-validator-cfnguard::cloudfront_custom_ssl_certificate_check', reason: noDomain },
        { id: 'cdk-validator-cfnguard::cloudfront_sni_enabled_check', reason: noDomain },
        { id: 'cdk-validator-cfnguard::cloudfront_security_policy_check', reason: noDomain },
      );
    }
  }

  /** The edge's own address: the custom domain when one was given, else the distribution's. */
  private publicBaseUrlOfEdge(customDomain: { domain: string } | undefined): string {
    return customDomain ? `https://${customDomain.domain}` : `https://${this.distribution!.distributionDomainName}`;
  }

  /**
   * The base of links in e-mails: `-c publicBaseUrl=...` when given, else the stage's own address. The
   * events stack's mailer imports the address (the attribute it is made of) from this stack; the export stays whether or not the
   * context is given, since CloudFormation updates this stack first and refuses to drop an export
   * another stack still imports (setting the context on a deployed stage would stop the deploy).
   */
  private publicAddress(exportedAttribute: string, ownAddress: string): string {
    this.exportValue(exportedAttribute);
    const given: unknown = this.node.tryGetContext('publicBaseUrl');
    if (given === undefined) return ownAddress;
    if (typeof given !== 'string' || !/^https?:\/\/[^/\s]+(\/\S*)?$/.test(given)) {
      throw new Error(`CDK context "publicBaseUrl" must be an absolute address such as https://pay.example.com; got ${JSON.stringify(given)}`);
    }
    return given;
  }

  /**
   * Invitations and verification links are e-mailed through Amazon SES v2 (functions/providers/mail.ts;
   * docs/decisions/051, 094) as the sender identity (`-c senderIdentity=`, a domain or an address).
   * The identity is not made here: SES names it by the bare domain or address, once per account and
   * region, so a second stage in the account could not create it again (docs/decisions/105); the
   * deployer makes it once (docs/deployment.md). This stack makes the stage's configuration set, which
   * every message names (MAIL_CONFIGURATION_SET): its bounces and complaints go to the default event
   * bus, where this stage's mail-feedback rule takes them. Only the handlers whose row `sendsMail` may
   * send, and only as that identity through that set (no wildcard; lib/aws/environment.ts
   * grantMailSending, given in their area's stack). Links point at the stage's public address unless
   * `-c publicBaseUrl=...` names another. A `simulated` stack without an identity sends no mail:
   * every function has MAIL_TRANSPORT `none`, invitations answer emailDelivered false.
   */
  private addMail(settings: FunctionContext['settings']): void {
    if (settings.senderIdentity) {
      const configurationSet = new ConfigurationSet(this, 'MailConfigurationSet', { configurationSetName: mailConfigurationSetName(settings) });
      new ConfigurationSetEventDestination(this, 'MailFeedback', {
        configurationSet,
        destination: EventDestination.eventBus(EventBus.fromEventBusName(this, 'DefaultBus', 'default')),
        events: [EmailSendingEvent.BOUNCE, EmailSendingEvent.COMPLAINT],
      });
    }
  }
}
