import * as z from 'zod/mini';
import { workflows, type OperationWorkflowName } from '#contract/workflows.ts';
import { logger } from '#platform/logger.ts';
import { workflowWait } from '#platform/workflow.ts';
import type { StepResult } from './progress.ts';
import { operationExecutionName } from './start.ts';

/**
 * The Lambda entry point of an operation's Task states, made from its steps: one function per
 * workflow (the steps share every import, so one warm function serves the whole workflow); each
 * Task names its step in the payload `{ step, organizationId, [idField], error? }` and routes on
 * the answer `{ outcome, waitSeconds }` (statemachines/*.asl.json), and `report` where the step
 * writes one for the history's reader.
 *
 * Each step logs one line with the operation's id and its execution's name; in Lambda the logger
 * adds the X-Ray trace id (`xray_trace_id`), so that line joins a trace, an execution history and
 * the operation (decision 120: the Powertools tracer would add ~120 KB to every bundle).
 */
export function taskHandler<O extends string, Ref>(
  workflow: OperationWorkflowName,
  steps: Record<string, (ref: Ref & { error?: unknown }) => Promise<StepResult<O>>>,
  defaultWaitSeconds = 10,
): (event: unknown) => Promise<{ outcome: O; waitSeconds: number; report?: string }> {
  const { idField } = workflows[workflow].operation;
  const names = Object.keys(steps) as [string, ...string[]];
  const inputSchema = z.object({
    step: z.enum(names),
    organizationId: z.string().check(z.minLength(1)),
    [idField]: z.string().check(z.minLength(1)),
    error: z.optional(z.unknown()),
  });
  return async (event) => {
    const { step, ...ref } = inputSchema.parse(event) as { step: string } & Record<string, unknown>;
    const { organizationId, [idField]: operationId } = ref as Record<string, string>;
    const joins = { workflow, step, operationId, organizationId, executionName: operationExecutionName(workflow, organizationId!, operationId!) };
    const { outcome, waitSeconds = defaultWaitSeconds, report, floorWaitSeconds = 0 } = await steps[step]!(ref as Ref & { error?: unknown })
      .catch((error: unknown) => {
        logger.warn('workflow step failed', { ...joins, error: error as Error });
        throw error;
      });
    logger.info('workflow step', { ...joins, outcome });
    return { outcome, waitSeconds: Math.max(workflowWait(waitSeconds), Math.min(floorWaitSeconds, waitSeconds)), ...(report === undefined ? {} : { report }) };
  };
}
