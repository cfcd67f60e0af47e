/**
 * CloudFormation's intrinsic functions, evaluated over a synthesized cloud assembly with a stand-in
 * account and region: what a deployed stack's `Fn::GetAtt`, `Ref`, `Fn::ImportValue`, nested
 * stack parameters, `Fn::Join` and `Fn::Sub` would come to. Only what the local grant check needs
 * to name a resource as AWS names it (ARNs, names, URLs); anything else fails loudly, so a new
 * construct whose ARN this does not know is found here and not silently read as no grant.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

export interface Template {
  Resources?: Record<string, TemplateResource>;
  Parameters?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown; Export?: { Name: unknown } }>;
}

/** One template of the assembly, top-level or nested, with what resolves its references. */
export interface StackTemplate {
  stackName: string;
  template: Template;
  /** A nested stack's parameters, as the parent passes them (already resolved). */
  parameters: Record<string, string>;
}

export interface Target {
  account: string;
  region: string;
  partition: string;
}

/** Reads every stack of a `cdk.out` folder (manifest.json) and its nested stacks, parents first. */
export function readAssembly(outdir: string, target: Target): TemplateValues {
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as {
    artifacts: Record<string, { type: string; properties?: { templateFile?: string } }>;
  };
  const values = new TemplateValues(target);
  const pending: { stackName: string; file: string; parameters: Record<string, unknown>; parent?: StackTemplate }[] = [];
  for (const [stackName, artifact] of Object.entries(manifest.artifacts)) {
    if (artifact.type === 'aws:cloudformation:stack' && artifact.properties?.templateFile) {
      pending.push({ stackName, file: artifact.properties.templateFile, parameters: {} });
    }
  }
  // Top-level stacks first (exports must be readable before a nested stack's parameters need them).
  const top = pending.splice(0).map(({ stackName, file }) => values.add(stackName, JSON.parse(readFileSync(join(outdir, file), 'utf8')) as Template, {}));
  const queue = [...top];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [logicalId, resource] of Object.entries(parent.template.Resources ?? {})) {
      if (resource.Type !== 'AWS::CloudFormation::Stack') continue;
      const file = resource.Metadata?.['aws:asset:path'];
      if (typeof file !== 'string') throw new Error(`${parent.stackName}/${logicalId}: nested stack without aws:asset:path`);
      const passed = (resource.Properties?.Parameters ?? {}) as Record<string, unknown>;
      const parameters = Object.fromEntries(Object.entries(passed).map(([name, value]) => [name, values.resolve(parent, value)]));
      queue.push(values.add(`${parent.stackName}/${logicalId}`, JSON.parse(readFileSync(join(outdir, file), 'utf8')) as Template, parameters));
    }
  }
  return values;
}

export class TemplateValues {
  readonly stacks: StackTemplate[] = [];

  constructor(readonly target: Target) {}

  add(stackName: string, template: Template, parameters: Record<string, string>): StackTemplate {
    const stack = { stackName, template, parameters };
    this.stacks.push(stack);
    return stack;
  }

  /** Every resource of a type, with the stack it lives in. */
  resourcesOfType(type: string): { stack: StackTemplate; logicalId: string; resource: TemplateResource }[] {
    return this.stacks.flatMap((stack) =>
      Object.entries(stack.template.Resources ?? {})
        .filter(([, resource]) => resource.Type === type)
        .map(([logicalId, resource]) => ({ stack, logicalId, resource })),
    );
  }

  /** A value with every intrinsic function evaluated: strings, numbers, lists and maps of them. */
  resolve(stack: StackTemplate, value: unknown): string;
  resolve(stack: StackTemplate, value: unknown, shape: 'any'): unknown;
  resolve(stack: StackTemplate, value: unknown, shape?: 'any'): unknown {
    const resolved = this.evaluate(stack, value);
    if (shape === 'any') return resolved;
    if (typeof resolved !== 'string') throw new Error(`${stack.stackName}: expected a string, got ${JSON.stringify(resolved)}`);
    return resolved;
  }

  private evaluate(stack: StackTemplate, value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.evaluate(stack, item));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value);
    const [key, argument] = entries[0] ?? [];
    if (entries.length === 1 && key !== undefined && (key === 'Ref' || key.startsWith('Fn::'))) return this.intrinsic(stack, key, argument);
    return Object.fromEntries(entries.map(([name, item]) => [name, this.evaluate(stack, item)]));
  }

  private intrinsic(stack: StackTemplate, name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(stack, argument as string);
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument) ? (argument as string[]) : (argument as string).split('.');
        return this.attribute(stack, logicalId!, attribute!);
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.evaluate(stack, parts) as unknown[]).map(String).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [unknown, unknown];
        return (this.evaluate(stack, list) as unknown[])[Number(this.evaluate(stack, index))];
      }
      case 'Fn::Split': {
        const [separator, text] = argument as [string, unknown];
        return String(this.evaluate(stack, text)).split(separator);
      }
      case 'Fn::Sub': {
        const [text, variables] = typeof argument === 'string' ? [argument, {}] : (argument as [string, Record<string, unknown>]);
        return text.replace(/\$\{([^}!][^}]*)\}/g, (_, reference: string) => {
          if (reference in variables) return String(this.evaluate(stack, variables[reference]));
          const [logicalId, attribute] = reference.split('.');
          return String(attribute ? this.attribute(stack, logicalId!, attribute) : this.ref(stack, logicalId!));
        });
      }
      case 'Fn::ImportValue':
        return this.imported(String(this.evaluate(stack, argument)));
      default:
        throw new Error(`${stack.stackName}: ${name} is not evaluated by the local grant check`);
    }
  }

  private imported(exportName: string): unknown {
    for (const stack of this.stacks) {
      for (const output of Object.values(stack.template.Outputs ?? {})) {
        if (output.Export && this.evaluate(stack, output.Export.Name) === exportName) return this.evaluate(stack, output.Value);
      }
    }
    throw new Error(`No stack exports ${exportName}`);
  }

  private ref(stack: StackTemplate, logicalId: string): string {
    const { account, region, partition } = this.target;
    switch (logicalId) {
      case 'AWS::AccountId': return account;
      case 'AWS::Region': return region;
      case 'AWS::Partition': return partition;
      case 'AWS::URLSuffix': return 'amazonaws.com';
      case 'AWS::StackName': return stack.stackName;
      case 'AWS::NoValue': return '';
    }
    if (logicalId in stack.parameters) return stack.parameters[logicalId]!;
    const resource = this.resource(stack, logicalId);
    const props = resource.Properties ?? {};
    const named = (property: string) => (props[property] === undefined ? this.generatedName(stack, logicalId) : this.resolve(stack, props[property]));
    switch (resource.Type) {
      case 'AWS::DynamoDB::Table': return named('TableName');
      case 'AWS::Lambda::Function': return named('FunctionName');
      case 'AWS::IAM::Role': return named('RoleName');
      case 'AWS::Logs::LogGroup': return named('LogGroupName');
      case 'AWS::Events::EventBus': return named('Name');
      case 'AWS::SQS::Queue': return `https://sqs.${region}.amazonaws.com/${account}/${named('QueueName')}`;
      case 'AWS::KMS::Key': return this.generatedName(stack, logicalId);
      case 'AWS::SecretsManager::Secret': return this.attribute(stack, logicalId, 'Arn');
      case 'AWS::StepFunctions::StateMachine': return this.attribute(stack, logicalId, 'Arn');
      case 'AWS::SNS::Topic': return this.attribute(stack, logicalId, 'Arn');
      default: return this.generatedName(stack, logicalId);
    }
  }

  private attribute(stack: StackTemplate, logicalId: string, attribute: string): string {
    const { account, region, partition } = this.target;
    const resource = this.resource(stack, logicalId);
    const props = resource.Properties ?? {};
    const name = (property: string) => (props[property] === undefined ? this.generatedName(stack, logicalId) : this.resolve(stack, props[property]));
    const arn = (service: string, resourcePart: string, inRegion = true) => `arn:${partition}:${service}:${inRegion ? region : ''}:${account}:${resourcePart}`;
    const key = `${resource.Type}.${attribute}`;
    switch (key) {
      case 'AWS::DynamoDB::Table.Arn': return arn('dynamodb', `table/${name('TableName')}`);
      case 'AWS::DynamoDB::Table.StreamArn': return arn('dynamodb', `table/${name('TableName')}/stream/local`);
      case 'AWS::Lambda::Function.Arn': return arn('lambda', `function:${name('FunctionName')}`);
      case 'AWS::IAM::Role.Arn': return arn('iam', `role/${name('RoleName')}`, false);
      case 'AWS::Logs::LogGroup.Arn': return arn('logs', `log-group:${name('LogGroupName')}:*`);
      case 'AWS::SQS::Queue.Arn': return arn('sqs', name('QueueName'));
      case 'AWS::SQS::Queue.QueueName': return name('QueueName');
      case 'AWS::Events::EventBus.Arn': return arn('events', `event-bus/${name('Name')}`);
      case 'AWS::Events::EventBus.Name': return name('Name');
      case 'AWS::Events::Rule.Arn': {
        const bus = props.EventBusName === undefined ? 'default' : this.resolve(stack, props.EventBusName);
        return arn('events', `rule/${bus === 'default' ? '' : `${bus}/`}${name('Name')}`);
      }
      case 'AWS::KMS::Key.Arn': return arn('kms', `key/${this.generatedName(stack, logicalId)}`);
      case 'AWS::SecretsManager::Secret.Arn': return arn('secretsmanager', `secret:${name('Name')}-AbCdEf`);
      case 'AWS::StepFunctions::StateMachine.Arn': return arn('states', `stateMachine:${name('StateMachineName')}`);
      case 'AWS::StepFunctions::StateMachine.Name': return name('StateMachineName');
      case 'AWS::SNS::Topic.Arn': return arn('sns', name('TopicName'));
      case 'AWS::SES::ConfigurationSet.Name': return name('Name');
      case 'AWS::ApiGatewayV2::Api.ApiEndpoint': return `https://${this.generatedName(stack, logicalId).toLowerCase()}.execute-api.${region}.amazonaws.com`;
      default:
        throw new Error(`${stack.stackName}: Fn::GetAtt ${logicalId}.${attribute} (${resource.Type}) is not evaluated by the local grant check`);
    }
  }

  private resource(stack: StackTemplate, logicalId: string): TemplateResource {
    const resource = stack.template.Resources?.[logicalId];
    if (!resource) throw new Error(`${stack.stackName}: no resource or parameter ${logicalId}`);
    return resource;
  }

  /**
   * A stand-in for CloudFormation's name of an unnamed resource (stack, logical id, random suffix).
   * Not cut to CloudFormation's length as the real one is: here it must only tell resources apart.
   */
  private generatedName(stack: StackTemplate, logicalId: string): string {
    return `${stack.stackName.replaceAll('/', '-')}-${logicalId}`;
  }
}
