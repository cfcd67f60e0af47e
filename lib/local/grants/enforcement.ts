/**
 * The local grant check (docs/decisions/111): every function the local wiring invokes runs as the
 * function the `simulated` stage deploys, and each AWS call it makes is checked, before it is
 * sent, against that function's role as synthesized (./synthesizedGrants.ts): the SDK calls (to
 * DynamoDB Local: every item of a transaction, every index queried) and the calls a local stand-in
 * answers (the workflow runner for Step Functions, the in-process bus for EventBridge, the table's
 * key for KMS, a generated cursor key for Secrets Manager, the mail outbox for SES). A call the role
 * does not allow is refused with AccessDeniedException, as AWS refuses it. The wiring between
 * services is checked the same way: the state machine's role invoking a task's function, a rule's
 * queue accepting the rule's messages and its consumer reading them, the stream's consumer, the
 * sweeper's schedule.
 *
 * Calls outside any function (the local runtime's own bookkeeping, the ops CLI, test set-up) are
 * not checked: in AWS they are the service itself or an operator's credentials.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync } from 'node:fs';
import { DynamoDBClient, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { config } from '#platform/config.ts';
import { useStandInCheck, type StandInCall, type StandInCheck } from '#platform/awsStandIns.ts';
import { outsideAnyInvocation, withInvocationSignal } from '#platform/invocation.ts';
import { evaluate, type AccessRequest, type Decision, type PolicyStatement } from './policy.ts';
import type { DeployedFunction, DeployedGrants } from './synthesizedGrants.ts';

/** The error AWS answers a call the caller's policies do not allow (an SDK exception of the `client` fault). */
export class AccessDeniedException extends (Object.getPrototypeOf(DynamoDBServiceException) as typeof DynamoDBServiceException) {
  constructor(message: string) {
    super({ name: 'AccessDeniedException', $fault: 'client', $metadata: { httpStatusCode: 400 }, message });
    Object.setPrototypeOf(this, AccessDeniedException.prototype);
  }
}

/** A function that ran past its deployed timeout: Lambda stops it and its caller sees this. */
export class FunctionTimedOut extends Error {
  override readonly name = 'Sandbox.Timedout';
  constructor(readonly entry: string, readonly timeoutSeconds: number) {
    super(`${entry} timed out after ${timeoutSeconds} s (its deployed timeout)`);
  }
}

const running = new AsyncLocalStorage<DeployedFunction>();

export class LocalGrants {
  private readonly byEntry: Map<string, DeployedFunction>;
  private readonly byArn: Map<string, DeployedFunction>;

  constructor(readonly grants: DeployedGrants) {
    this.byEntry = new Map(grants.functions.map((deployed) => [deployed.entry, deployed]));
    this.byArn = new Map(grants.functions.map((deployed) => [deployed.arn, deployed]));
  }

  /** The deployed function of a handler module, if the stage deploys one. */
  deployed(entry: string): DeployedFunction | undefined {
    return this.byEntry.get(entry);
  }

  /** The deployed function of a handler module; a module the stage does not deploy cannot be invoked. */
  functionOf(entry: string): DeployedFunction {
    const deployed = this.byEntry.get(entry);
    if (!deployed) throw new Error(`${entry} is not a function of the ${this.grants.stage} stage: the CDK app deploys no function for it`);
    return deployed;
  }

  /**
   * Runs a handler as its deployed function: its calls are checked against its role, and it fails
   * with FunctionTimedOut past its timeout: its answer is dropped, as Lambda drops a timed-out
   * invocation's, and the DynamoDB calls it still makes are aborted (#platform/invocation.ts), as
   * Lambda stops the function.
   */
  async invoke<T>(entry: string, work: () => Promise<T>): Promise<T> {
    const deployed = this.functionOf(entry);
    let timer: NodeJS.Timeout | undefined;
    const stopped = new AbortController();
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        stopped.abort();
        reject(new FunctionTimedOut(entry, deployed.timeoutSeconds));
      }, deployed.timeoutSeconds * 1000);
    });
    try {
      return await Promise.race([running.run(deployed, () => withInvocationSignal(stopped.signal, work)), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** The function whose invocation this code runs in, if any. */
  current(): DeployedFunction | undefined {
    return running.getStore();
  }

  /** Work that belongs to no function (a runner's execution started by a handler, a bus delivery). */
  static outside<T>(work: () => T): T {
    return running.exit(() => outsideAnyInvocation(work));
  }

  /** Refuses, as AWS would, a call the running function's role does not allow. Outside a function: allowed. */
  check(action: string, resource: string): void {
    const deployed = running.getStore();
    if (!deployed) return;
    requireAllowed(deployed.statements, { action, resource }, `${deployed.entry} (role ${deployed.roleArn})`);
  }

  /** The ARN the deployed table has, for the local table this process uses. */
  tableArn(localName: string): string {
    return localName === config().TABLE_NAME ? this.grants.table.arn : this.grants.table.arn.replace(/table\/.*$/, `table/${localName}`);
  }

  // ---- Stand-ins ----------------------------------------------------------------------------

  /** The call checked on the ARN it would name once deployed (what the function's environment says); the stand-in then works as no function. */
  standInCheck: StandInCheck = (call, work) => {
    const deployed = running.getStore();
    if (deployed) this.checkStandIn(deployed, call);
    return LocalGrants.outside(work);
  };

  private checkStandIn(deployed: DeployedFunction, call: StandInCall): void {
    const value = deployed.environment[call.resourceVariable];
    const resource = value === undefined ? undefined : call.resourceVariable === 'MAIL_FROM' ? this.sesIdentityArn(value) : value;
    if (resource === undefined) {
      throw new AccessDeniedException(
        `${deployed.entry} is deployed without ${call.resourceVariable}: it could not make ${call.action} in AWS (the local stand-in refuses it too)`,
      );
    }
    requireAllowed(deployed.statements, { action: call.action, resource }, `${deployed.entry} (role ${deployed.roleArn})`);
  }

  private sesIdentityArn(mailFrom: string): string {
    const address = /<([^>]+)>/.exec(mailFrom)?.[1] ?? mailFrom;
    const domain = address.split('@')[1] ?? address;
    const { partition, region, account } = this.grants.target;
    return `arn:${partition}:ses:${region}:${account}:identity/${domain}`;
  }

  /** The state machine ARN the running function names a workflow by (its WORKFLOW_ARN_PREFIX + the name). */
  stateMachineArnFor(workflow: string): string | undefined {
    const prefix = running.getStore()?.environment.WORKFLOW_ARN_PREFIX;
    return prefix === undefined ? undefined : `${prefix}${workflow}`;
  }

  /** The bus ARN the running function puts events on (its EVENT_BUS_NAME, EventBridge's default bus without one). */
  busArnFor(): string {
    const named = running.getStore()?.environment.EVENT_BUS_NAME ?? 'default';
    const { partition, region, account } = this.grants.target;
    return `arn:${partition}:events:${region}:${account}:event-bus/${named}`;
  }

  // ---- Wiring between services --------------------------------------------------------------

  /** Step Functions invoking a task: the state machine's role must allow lambda:InvokeFunction on it. */
  checkTaskInvoke(workflow: string, placeholder: string): void {
    const machine = this.grants.stateMachines.find((candidate) => candidate.name.endsWith(`-${workflow}`));
    if (!machine) throw new Error(`The ${this.grants.stage} stage deploys no state machine for ${workflow}`);
    const functionArn = machine.tasks[placeholder];
    if (!functionArn) throw new AccessDeniedException(`${machine.name} substitutes no function for \${${placeholder}}`);
    requireAllowed(machine.statements, { action: 'lambda:InvokeFunction', resource: functionArn }, `state machine ${machine.name} (role ${machine.roleArn})`);
  }

  /** The task's handler module, as the state machine's definition names its function. */
  taskEntry(workflow: string, placeholder: string): string | undefined {
    const machine = this.grants.stateMachines.find((candidate) => candidate.name.endsWith(`-${workflow}`));
    const arn = machine?.tasks[placeholder];
    return arn === undefined ? undefined : this.byArn.get(arn)?.entry;
  }

  /**
   * EventBridge → SQS → Lambda for one rule: the rule exists on its bus and targets a queue, the
   * queue's policy lets EventBridge send for that rule, the queue's consumer is the target's
   * function, and its role may receive and delete the queue's messages.
   */
  checkRuleDelivery(ruleName: string, targetEntry: string): void {
    const rule = this.grants.rules.find((candidate) => candidate.name.endsWith(`-${ruleName}`));
    if (!rule) throw new Error(`The ${this.grants.stage} stage deploys no rule ${ruleName}`);
    const consumer = this.functionOf(targetEntry);
    const delivered = rule.targets.some((queueArn) => {
      const queue = this.grants.queues.find((candidate) => candidate.arn === queueArn);
      if (!queue) return false;
      requireAllowed(queue.policy, {
        action: 'sqs:SendMessage',
        resource: queue.arn,
        principal: { Service: 'events.amazonaws.com' },
        context: { 'aws:SourceArn': rule.arn, 'aws:SecureTransport': 'true' },
      }, `queue ${queue.name}'s policy`);
      const consumed = this.grants.eventSourceMappings.some((mapping) => mapping.sourceArn === queue.arn && mapping.functionArn === consumer.arn);
      if (!consumed) return false;
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) {
        requireAllowed(consumer.statements, { action, resource: queue.arn }, `${targetEntry} (role ${consumer.roleArn})`);
      }
      return true;
    });
    if (!delivered) throw new AccessDeniedException(`Rule ${rule.name} reaches no queue that ${targetEntry} consumes`);
  }

  /** The table stream's event source mapping: its consumer must be this function and may read the stream. */
  checkStreamConsumer(entry: string): void {
    const consumer = this.functionOf(entry);
    const mapped = this.grants.eventSourceMappings.some((mapping) => mapping.sourceArn === this.grants.table.streamArn && mapping.functionArn === consumer.arn);
    if (!mapped) throw new AccessDeniedException(`No event source mapping hands the table's stream to ${entry}`);
    for (const action of ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']) {
      requireAllowed(consumer.statements, { action, resource: this.grants.table.streamArn }, `${entry} (role ${consumer.roleArn})`);
    }
  }

  /** EventBridge Scheduler invoking a function on its schedule: the schedule's role must allow it. */
  checkScheduledInvoke(entry: string): void {
    const target = this.functionOf(entry);
    const schedule = this.grants.schedules.find((candidate) => candidate.targetArn === target.arn);
    if (!schedule) throw new AccessDeniedException(`No schedule invokes ${entry}`);
    requireAllowed(schedule.statements, { action: 'lambda:InvokeFunction', resource: target.arn }, `the schedule of ${entry} (role ${schedule.roleArn})`);
  }

  // ---- SDK calls ----------------------------------------------------------------------------

  /** Each IAM request an SDK command makes, as AWS authorizes it. */
  sdkRequests(serviceId: string, commandName: string, input: Record<string, unknown>): AccessRequest[] {
    if (serviceId === 'DynamoDB') return this.dynamoRequests(commandName, input);
    throw new AccessDeniedException(`The local grant check does not know what ${serviceId} ${commandName} is authorized on; add it to lib/local/grants/enforcement.ts`);
  }

  private dynamoRequests(command: string, input: Record<string, unknown>): AccessRequest[] {
    const table = (name: unknown) => this.tableArn(String(name));
    const operation = documentOperations[command] ?? command;
    switch (operation) {
      case 'GetItem': case 'PutItem': case 'UpdateItem': case 'DeleteItem': case 'DescribeTable':
        return [{ action: `dynamodb:${operation}`, resource: table(input.TableName) }];
      case 'Query': case 'Scan':
        return [{ action: `dynamodb:${operation}`, resource: input.IndexName ? `${table(input.TableName)}/index/${String(input.IndexName)}` : table(input.TableName) }];
      case 'BatchGetItem': case 'BatchWriteItem':
        return Object.keys((input.RequestItems ?? {}) as object).map((name) => ({ action: `dynamodb:${operation}`, resource: table(name) }));
      case 'TransactGetItems':
        return ((input.TransactItems ?? []) as { Get: { TableName: string } }[]).map((item) => ({ action: 'dynamodb:GetItem', resource: table(item.Get.TableName) }));
      case 'TransactWriteItems':
        // No TransactWriteItems action exists: each item is authorized as its own action.
        return ((input.TransactItems ?? []) as Record<string, { TableName: string }>[]).map((item) => {
          const [kind, body] = Object.entries(item)[0]!;
          return { action: `dynamodb:${transactActions[kind] ?? kind}`, resource: table(body.TableName) };
        });
      default:
        throw new AccessDeniedException(`The local grant check does not know what DynamoDB ${operation} is authorized on; add it to lib/local/grants/enforcement.ts`);
    }
  }
}

/** lib-dynamodb's command names → the DynamoDB operation each sends. */
const documentOperations: Record<string, string> = {
  Get: 'GetItem', Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem',
  BatchGet: 'BatchGetItem', BatchWrite: 'BatchWriteItem', TransactGet: 'TransactGetItems', TransactWrite: 'TransactWriteItems',
};
const transactActions: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem' };

/**
 * LOCAL_GRANTS_AUDIT=<file>: each distinct call checked is appended there as a JSON line (who,
 * action, resource, and `refused` when it was) the first time it is seen, so a run of the tests shows which grants each
 * function used and which it holds for nothing (lib/local/grants/auditReport.ts reads it).
 */
const audited = new Set<string>();
const auditFile = process.env.LOCAL_GRANTS_AUDIT;

function audit(who: string, request: AccessRequest, refused: boolean): void {
  const line = JSON.stringify({ who: who.replace(/ \(.*$/, ''), action: request.action, resource: request.resource, ...(refused ? { refused } : {}) });
  if (audited.has(line)) return;
  audited.add(line);
  appendFileSync(auditFile!, `${line}\n`);
}

/**
 * Decisions taken, per role's statements (installed once, never changed in place: a test that plants
 * a missing grant installs new ones): every further DynamoDB call of a function on the same action
 * and resource is a lookup, not an evaluation. Requests with a context or principal are evaluated each time.
 */
const decided = new WeakMap<PolicyStatement[], Map<string, Decision>>();

function decisionOf(statements: PolicyStatement[], request: AccessRequest): Decision {
  if (request.context || request.principal) return evaluate(statements, request);
  let byRequest = decided.get(statements);
  if (!byRequest) decided.set(statements, (byRequest = new Map()));
  const key = `${request.action}\n${request.resource}`;
  let decision = byRequest.get(key);
  if (!decision) byRequest.set(key, (decision = evaluate(statements, request)));
  return decision;
}

function requireAllowed(statements: PolicyStatement[], request: AccessRequest, who: string): void {
  const decision = decisionOf(statements, request);
  if (auditFile) audit(who, request, decision !== 'allowed');
  if (decision === 'allowed') return;
  const why = decision === 'explicitDeny' ? 'with an explicit deny in a policy' : `because no policy allows the ${request.action} action`;
  throw new AccessDeniedException(`${who} is not authorized to perform: ${request.action} on resource: ${request.resource} ${why}`);
}

let installed: LocalGrants | undefined;

/** Runs a handler as its deployed function when grants are installed (npm start, the tests' service); as is otherwise. */
export function invokeAs<T>(entry: string, work: () => Promise<T>): Promise<T> {
  return installed ? installed.invoke(entry, work) : work();
}
let sdkHooked = false;

/** The grants this process enforces (set by installGrants). */
export function localGrants(): LocalGrants | undefined {
  return installed;
}

/**
 * Installs the check for this process: every AWS SDK client's send (one prototype all the SDK's
 * clients share) and the stand-ins' reports. Installing again replaces the grants (a test plants a
 * missing one); `undefined` uninstalls.
 */
export function installGrants(grants: DeployedGrants | undefined): LocalGrants | undefined {
  installed = grants ? new LocalGrants(grants) : undefined;
  useStandInCheck(installed?.standInCheck);
  if (installed && !sdkHooked) {
    sdkHooked = true;
    const clientPrototype = Object.getPrototypeOf(DynamoDBClient.prototype) as { send: (this: SdkClient, command: SdkCommand, ...rest: unknown[]) => unknown };
    const send = clientPrototype.send;
    clientPrototype.send = function checkedSend(this: SdkClient, command: SdkCommand, ...rest: unknown[]) {
      const grantsNow = installed;
      const deployed = running.getStore();
      if (grantsNow && deployed) {
        try {
          const commandName = command.constructor.name.replace(/Command$/, '');
          for (const request of grantsNow.sdkRequests(this.config.serviceId ?? 'unknown', commandName, command.input ?? {})) {
            requireAllowed(deployed.statements, request, `${deployed.entry} (role ${deployed.roleArn})`);
          }
        } catch (error) {
          // As the SDK reports a refusal: a rejected promise (a callback, when one is given).
          const callback = rest.find((argument) => typeof argument === 'function') as ((error: unknown) => void) | undefined;
          if (callback) return void callback(error);
          return Promise.reject(error);
        }
      }
      return send.call(this, command, ...rest);
    };
  }
  return installed;
}

interface SdkClient {
  config: { serviceId?: string };
}
interface SdkCommand {
  input?: Record<string, unknown>;
  constructor: { name: string };
}
