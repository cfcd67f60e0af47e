import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  GetExecutionHistoryCommand,
  SFNClient,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { config } from './config.ts';
import type { StartResult, WorkflowEngine, WorkflowHistoryEvent } from './workflow.ts';
import { workflows, type WorkflowName } from '#contract/workflows.ts';

/**
 * The workflow port on Step Functions. The CDK workflow stack names each state machine
 * `payments-<env>-<registry name>` and gives every Lambda that starts workflows
 * WORKFLOW_ARN_PREFIX = `arn:aws:states:<region>:<account>:stateMachine:payments-<env>-`,
 * so the ARN is the prefix plus the registry name and no lookup is needed.
 */
export function stateMachineArn(prefix: string, workflow: WorkflowName): string {
  return `${prefix}${workflow}`;
}

/** arn:…:stateMachine:<machine> → arn:…:execution:<machine>:<name>. */
export function executionArnOf(machineArn: string, executionName: string): string {
  return `${machineArn.replace(':stateMachine:', ':execution:')}:${executionName}`;
}

/** How far Step Functions' clock may run behind this function's and a new execution still count as new. */
export const startClockSkewMs = 1000;

/**
 * Whether a successful StartExecution created the execution. Step Functions answers a start of a
 * running execution's name with the same input by success too, with that execution's own
 * startDate (decision 100): one that began before this call is a repeat, not a start. A repeat of
 * an execution begun within the skew allowance is taken for a start (two starters racing).
 */
export function startedByThisCall(startDate: Date | undefined, calledAt: Date): boolean {
  if (!startDate) return true;
  return startDate.getTime() >= calledAt.getTime() - startClockSkewMs;
}

/** Built once per Lambda container, on first use. */
let client: SFNClient | undefined;

export class StepFunctionsEngine implements WorkflowEngine {
  private readonly arnPrefix: string;

  constructor(arnPrefix?: string, private readonly stepFunctions?: SFNClient) {
    const configured = arnPrefix ?? config().WORKFLOW_ARN_PREFIX;
    if (!configured) throw new Error('WORKFLOW_ARN_PREFIX is not set: the Step Functions adapter cannot name a state machine');
    this.arnPrefix = configured;
  }

  private sfn(): SFNClient {
    return this.stepFunctions ?? (client ??= new SFNClient({}));
  }

  async start(workflow: WorkflowName, executionName: string, input: Record<string, unknown>): Promise<StartResult> {
    const calledAt = new Date();
    try {
      const { startDate } = await this.sfn().send(
        new StartExecutionCommand({
          stateMachineArn: stateMachineArn(this.arnPrefix, workflow),
          name: executionName,
          input: JSON.stringify(input),
        }),
      );
      return { executionName, started: startedByThisCall(startDate, calledAt) };
    } catch (error) {
      // The name is derived from the operation: a finished execution of it (or one with other input) is refused here, by Step Functions.
      if (error instanceof ExecutionAlreadyExists) return { executionName, started: false };
      throw error;
    }
  }

  /** GetExecutionHistory, every page, oldest first (the execution ARN is the state machine's with `execution` and the name). */
  async history(workflow: WorkflowName, executionName: string): Promise<WorkflowHistoryEvent[] | undefined> {
    const executionArn = executionArnOf(stateMachineArn(this.arnPrefix, workflow), executionName);
    const events: WorkflowHistoryEvent[] = [];
    let nextToken: string | undefined;
    try {
      do {
        const page = await this.sfn().send(new GetExecutionHistoryCommand({ executionArn, maxResults: 1000, nextToken, includeExecutionData: true }));
        for (const { timestamp, ...event } of page.events ?? []) events.push({ ...event, timestamp: (timestamp ?? new Date(0)).toISOString() });
        nextToken = page.nextToken;
      } while (nextToken);
    } catch (error) {
      if (error instanceof ExecutionDoesNotExist) return undefined;
      throw error;
    }
    return events;
  }

  /**
   * Answered without a call (docs/decisions/106): GET /health is open, and a probe per request would
   * let anyone spend the account's Step Functions API quota (the same quota StartExecution draws on)
   * and answer 503 when it ran out. Step Functions is a regional managed service: whether it takes
   * executions shows in the workflow alarms and AWS Health, not in a probe; this adapter, once it can
   * name the state machines, is as reachable as it can know.
   */
  async reachable(): Promise<boolean> {
    return Object.keys(workflows).length > 0;
  }
}
