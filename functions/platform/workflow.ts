import { createHash } from 'node:crypto';
import type { HistoryEvent } from '@aws-sdk/client-sfn';
import type { WorkflowName } from '#contract/workflows.ts';
import { config } from './config.ts';

/**
 * The workflow port. Handlers start durable operations through it and never know which engine
 * runs them: Step Functions in AWS (functions/platform/workflowStepFunctions.ts), the local ASL
 * runner on this machine (lib/local/workflowRunner.ts), chosen by whoever wires the process.
 */
export interface StartResult {
  executionName: string;
  /**
   * True only for the call that created the execution. False for a repeat, whichever way the
   * engine answers it: a running execution of that name and input (Step Functions answers success,
   * naming it), or a finished one, or other input (ExecutionAlreadyExists). Nothing new runs.
   */
  started: boolean;
}

/** One event of an execution's history, as Step Functions' GetExecutionHistory gives it (timestamp as ISO text). */
export type WorkflowHistoryEvent = Omit<HistoryEvent, 'timestamp'> & { timestamp: string };

export interface WorkflowEngine {
  start(workflow: WorkflowName, executionName: string, input: Record<string, unknown>): Promise<StartResult>;
  /**
   * True when the engine can accept new executions, as far as it can tell without a call to AWS
   * (GET /health is open: it must cost nothing per request; docs/decisions/106).
   */
  reachable(): Promise<boolean>;
  /** The execution's history, oldest first; undefined when the workflow has no execution of that name. */
  history(workflow: WorkflowName, executionName: string): Promise<WorkflowHistoryEvent[] | undefined>;
}

let engine: WorkflowEngine | undefined;
let defaultEngine: (() => Promise<WorkflowEngine>) | undefined;

/** The local launcher, the admin CLI and tests install their engine before any handler runs. */
export function useWorkflowEngine(next: WorkflowEngine | undefined): void {
  engine = next;
}

/** In Lambda nothing is installed: the Step Functions adapter is loaded on first use. */
export async function workflowEngine(): Promise<WorkflowEngine> {
  if (engine) return engine;
  defaultEngine ??= async () => {
    const { StepFunctionsEngine } = await import('./workflowStepFunctions.ts');
    return new StepFunctionsEngine();
  };
  engine = await defaultEngine();
  return engine;
}

/**
 * Deterministic execution name from organization and operation id, within Step Functions'
 * limit (80 characters of [A-Za-z0-9-_]), so a second start of the same operation runs nothing new
 * (the engine answers it as a repeat: decision 100). It shows the id: `<organizationId>-<operationId>` when that fits; otherwise the id
 * with every other character as `_`, cut to 63, and 16 hex of a hash of both, which keeps names
 * apart (docs/decisions/085). Support staff find it from the operation (lib/ops/operationHistory.ts).
 */
export function executionName(organizationId: string, operationId: string): string {
  const plain = `${organizationId}-${operationId}`;
  if (plain.length <= 80 && /^[A-Za-z0-9_-]+$/.test(plain)) return plain;
  const digest = createHash('sha256').update(`${organizationId}\u0000${operationId}`).digest('hex').slice(0, 16);
  return `${operationId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 63)}-${digest}`;
}

/**
 * The seconds a task answers for a Wait state's SecondsPath, capped by WAIT_MAX_SECONDS where it is
 * set (locally; never in AWS). Only the value is shortened: it still goes through the state's path,
 * so a bad one (negative, not a number) fails the execution locally as it would in AWS.
 */
export function workflowWait(seconds: number): number {
  const max = config().WAIT_MAX_SECONDS;
  return max === undefined ? seconds : Math.min(seconds, max);
}
