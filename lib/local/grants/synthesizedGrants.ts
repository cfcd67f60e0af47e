/**
 * What the `simulated` stage deploys, read from its synthesized templates for the local grant
 * check (docs/decisions/111): each function's role statements, timeout, memory and environment;
 * each state machine's role and the task functions it names; the event rules, their queues, the
 * queues' policies and consumers; the table stream's consumer; the sweeper's schedule. One source,
 * the CDK app: a grant can only be wrong in one place.
 *
 * Synthesizing takes seconds, so the result is cached under cdk.out/.grants/ by a digest of every
 * file the CDK app is built from (found by esbuild, as a bundle would find them), the lock file
 * and the state machine definitions: an unchanged tree starts without synthesizing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { buildSync } from 'esbuild';
import { z } from 'zod';
import { projectRoot } from '../../build/lambdaBundles.ts';
import { policyStatement, type PolicyStatement } from './policy.ts';
import { readAssembly, type StackTemplate, type Target, type TemplateValues } from './templateValues.ts';

/** The stand-in account and region the templates are evaluated with (as in .ci/run's synth). */
export const grantsTarget: Target = { account: '123456789012', region: 'eu-west-1', partition: 'aws' };
const stage = 'simulated';

const statements = z.array(policyStatement);

const deployedFunction = z.object({
  entry: z.string(),
  arn: z.string(),
  roleArn: z.string(),
  timeoutSeconds: z.number(),
  memoryMb: z.number(),
  environment: z.record(z.string(), z.string()),
  statements,
});

export const deployedGrants = z.object({
  digest: z.string(),
  stage: z.string(),
  target: z.object({ account: z.string(), region: z.string(), partition: z.string() }),
  table: z.object({ name: z.string(), arn: z.string(), streamArn: z.string() }),
  functions: z.array(deployedFunction),
  stateMachines: z.array(z.object({ name: z.string(), arn: z.string(), roleArn: z.string(), statements, tasks: z.record(z.string(), z.string()) })),
  eventBuses: z.array(z.object({ name: z.string(), arn: z.string() })),
  rules: z.array(z.object({ name: z.string(), arn: z.string(), busName: z.string(), targets: z.array(z.string()) })),
  queues: z.array(z.object({ name: z.string(), arn: z.string(), policy: statements })),
  eventSourceMappings: z.array(z.object({ sourceArn: z.string(), functionArn: z.string() })),
  schedules: z.array(z.object({ targetArn: z.string(), roleArn: z.string(), statements })),
});
export type DeployedGrants = z.infer<typeof deployedGrants>;
export type DeployedFunction = z.infer<typeof deployedFunction>;

const cacheRoot = join(projectRoot, 'cdk.out', '.grants');

/** The cached grants of this tree, synthesized first when the tree changed since. */
export async function loadDeployedGrants(): Promise<DeployedGrants> {
  const digest = grantsDigest();
  const file = join(cacheRoot, `${digest}.json`);
  if (existsSync(file)) {
    const cached = deployedGrants.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (cached.success) return cached.data;
  }
  const grants = await synthesizeGrants(digest);
  mkdirSync(cacheRoot, { recursive: true });
  for (const old of readdirSync(cacheRoot)) rmSync(join(cacheRoot, old), { force: true });
  // Written aside and renamed: test workers starting together read a whole file or none.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(grants));
  renameSync(partial, file);
  return grants;
}

/** The CDK app's own source files (as esbuild resolves them from bin/app.ts), the lock file and the ASL. */
export function grantsDigest(): string {
  const { metafile } = buildSync({
    absWorkingDir: projectRoot,
    entryPoints: [join(projectRoot, 'bin', 'app.ts')],
    bundle: true,
    write: false,
    metafile: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'silent',
  });
  const files = [
    ...Object.keys(metafile.inputs).map((input) => join(projectRoot, input)),
    join(projectRoot, 'package-lock.json'),
    ...readdirSync(join(projectRoot, 'statemachines')).map((name) => join(projectRoot, 'statemachines', name)),
    new URL(import.meta.url).pathname,
    join(import.meta.dirname, 'templateValues.ts'),
  ];
  const hash = createHash('sha256').update(stage);
  for (const path of [...new Set(files)].sort()) hash.update(relative(projectRoot, path)).update('\0').update(readFileSync(path)).update('\0');
  return hash.digest('hex').slice(0, 32);
}

async function synthesizeGrants(digest: string): Promise<DeployedGrants> {
  const [{ App }, { buildPaymentsApp }, { lambdaEntries, entryName }] = await Promise.all([
    import('aws-cdk-lib'),
    import('../../aws/app.ts'),
    import('../../aws/handlers.ts'),
  ]);
  const work = mkdtempSync(join(tmpdir(), 'payments-grants-'));
  try {
    // The policies do not depend on the code: every function points at one empty asset, so
    // nothing is bundled for this.
    const placeholder = join(work, 'code');
    mkdirSync(placeholder);
    const outdir = join(work, 'cdk.out');
    const app = new App({
      outdir,
      // Asset metadata names each nested stack's template file, as the CLI asks for it.
      context: { environment: stage, account: grantsTarget.account, region: grantsTarget.region, senderIdentity: 'payments.example.com', 'aws:cdk:enable-asset-metadata': true },
    });
    buildPaymentsApp(app, lambdaEntries().map((entry) => ({ entry, name: entryName(entry), outdir: placeholder, bytes: 0, importBytes: 0 })), { validate: false });
    app.synth();
    return grantsOf(readAssembly(outdir, grantsTarget), digest);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function grantsOf(values: TemplateValues, digest: string): DeployedGrants {
  const statementsOfRole = roleStatements(values);
  const roleOf = (stack: StackTemplate, role: unknown) => {
    const arn = values.resolve(stack, role);
    return { roleArn: arn, statements: statementsOfRole.get(arn) ?? [] };
  };

  const [table] = values.resourcesOfType('AWS::DynamoDB::Table');
  if (!table) throw new Error('The stage deploys no table');

  const functions = values.resourcesOfType('AWS::Lambda::Function').map(({ stack, logicalId, resource }) => {
    const props = resource.Properties ?? {};
    const description = values.resolve(stack, props.Description);
    const entry = description.replace(/ \([^)]*\)$/, '');
    const environment = values.resolve(stack, (props.Environment as { Variables?: unknown } | undefined)?.Variables ?? {}, 'any') as Record<string, string>;
    return {
      entry,
      arn: values.resolve(stack, { 'Fn::GetAtt': [logicalId, 'Arn'] }),
      ...roleOf(stack, props.Role),
      timeoutSeconds: Number(props.Timeout ?? 3),
      memoryMb: Number(props.MemorySize ?? 128),
      environment,
    };
  });

  const stateMachines = values.resourcesOfType('AWS::StepFunctions::StateMachine').map(({ stack, logicalId, resource }) => {
    const props = resource.Properties ?? {};
    const substitutions = values.resolve(stack, props.DefinitionSubstitutions ?? {}, 'any') as Record<string, string>;
    return {
      name: values.resolve(stack, props.StateMachineName),
      arn: values.resolve(stack, { Ref: logicalId }),
      ...roleOf(stack, props.RoleArn),
      tasks: substitutions,
    };
  });

  const eventBuses = values.resourcesOfType('AWS::Events::EventBus').map(({ stack, logicalId, resource }) => ({
    name: values.resolve(stack, resource.Properties?.Name),
    arn: values.resolve(stack, { 'Fn::GetAtt': [logicalId, 'Arn'] }),
  }));
  const { account, region, partition } = values.target;
  eventBuses.push({ name: 'default', arn: `arn:${partition}:events:${region}:${account}:event-bus/default` });

  const rules = values.resourcesOfType('AWS::Events::Rule').map(({ stack, logicalId, resource }) => {
    const props = resource.Properties ?? {};
    return {
      name: values.resolve(stack, props.Name),
      arn: values.resolve(stack, { 'Fn::GetAtt': [logicalId, 'Arn'] }),
      busName: props.EventBusName === undefined ? 'default' : values.resolve(stack, props.EventBusName),
      targets: ((props.Targets ?? []) as { Arn: unknown }[]).map((target) => values.resolve(stack, target.Arn)),
    };
  });

  const queuePolicies = new Map<string, PolicyStatement[]>();
  for (const { stack, resource } of values.resourcesOfType('AWS::SQS::QueuePolicy')) {
    const props = resource.Properties ?? {};
    const document = values.resolve(stack, props.PolicyDocument, 'any') as { Statement: unknown[] };
    for (const queue of (props.Queues ?? []) as unknown[]) {
      const url = values.resolve(stack, queue);
      queuePolicies.set(url, [...(queuePolicies.get(url) ?? []), ...statements.parse(document.Statement)]);
    }
  }
  const queues = values.resourcesOfType('AWS::SQS::Queue').map(({ stack, logicalId }) => ({
    name: values.resolve(stack, { 'Fn::GetAtt': [logicalId, 'QueueName'] }),
    arn: values.resolve(stack, { 'Fn::GetAtt': [logicalId, 'Arn'] }),
    policy: queuePolicies.get(values.resolve(stack, { Ref: logicalId })) ?? [],
  }));

  const functionArnByName = new Map(values.resourcesOfType('AWS::Lambda::Function').map(({ stack, logicalId }) => [
    values.resolve(stack, { Ref: logicalId }),
    values.resolve(stack, { 'Fn::GetAtt': [logicalId, 'Arn'] }),
  ]));
  const eventSourceMappings = values.resourcesOfType('AWS::Lambda::EventSourceMapping').map(({ stack, resource }) => {
    const props = resource.Properties ?? {};
    const name = values.resolve(stack, props.FunctionName);
    return { sourceArn: values.resolve(stack, props.EventSourceArn), functionArn: functionArnByName.get(name) ?? name };
  });

  const schedules = values.resourcesOfType('AWS::Scheduler::Schedule').map(({ stack, resource }) => {
    const target = resource.Properties?.Target as { Arn: unknown; RoleArn: unknown };
    return { targetArn: values.resolve(stack, target.Arn), ...roleOf(stack, target.RoleArn) };
  });

  return deployedGrants.parse({
    digest,
    stage,
    target: values.target,
    table: {
      name: values.resolve(table.stack, { Ref: table.logicalId }),
      arn: values.resolve(table.stack, { 'Fn::GetAtt': [table.logicalId, 'Arn'] }),
      streamArn: values.resolve(table.stack, { 'Fn::GetAtt': [table.logicalId, 'StreamArn'] }),
    },
    functions,
    stateMachines,
    eventBuses,
    rules,
    queues,
    eventSourceMappings,
    schedules,
  });
}

/**
 * Role ARN → every statement its inline policies and attached AWS::IAM::Policy resources give it.
 * A managed policy cannot be read from the template, so a role with one is refused here: the
 * stacks attach none (each function's role is made without AWSLambdaBasicExecutionRole).
 */
function roleStatements(values: TemplateValues): Map<string, PolicyStatement[]> {
  const byRoleName = new Map<string, { arn: string; statements: PolicyStatement[] }>();
  for (const { stack, logicalId, resource } of values.resourcesOfType('AWS::IAM::Role')) {
    const props = resource.Properties ?? {};
    if (props.ManagedPolicyArns !== undefined) throw new Error(`${stack.stackName}/${logicalId}: a managed policy is not read by the local grant check`);
    const inline = ((props.Policies ?? []) as { PolicyDocument: unknown }[]).flatMap((policy) =>
      statements.parse((values.resolve(stack, policy.PolicyDocument, 'any') as { Statement: unknown[] }).Statement),
    );
    byRoleName.set(values.resolve(stack, { Ref: logicalId }), { arn: values.resolve(stack, { 'Fn::GetAtt': [logicalId, 'Arn'] }), statements: inline });
  }
  for (const { stack, logicalId, resource } of values.resourcesOfType('AWS::IAM::Policy')) {
    const props = resource.Properties ?? {};
    const document = values.resolve(stack, props.PolicyDocument, 'any') as { Statement: unknown[] };
    for (const role of (props.Roles ?? []) as unknown[]) {
      const owner = byRoleName.get(values.resolve(stack, role));
      if (!owner) throw new Error(`${stack.stackName}/${logicalId}: attached to a role the stacks do not make`);
      owner.statements.push(...statements.parse(document.Statement));
    }
  }
  return new Map([...byRoleName.values()].map(({ arn, statements: list }) => [arn, list]));
}
