import { workflows, type OperationWorkflowName } from '#contract/workflows.ts';
import { logger } from '#platform/logger.ts';
import { executionName, workflowEngine } from '#platform/workflow.ts';

/**
 * Starting an operation's workflow, one rule for all of them: the execution is named
 * `<organizationId>-<executionPrefix>-<id>` (functions/contract/workflows.ts), so a second start of
 * the same operation runs nothing twice (decision 085): the engine answers it as a repeat, a
 * success naming the running execution or ExecutionAlreadyExists once it has ended (decision 100).
 */
export function operationExecutionName(workflow: OperationWorkflowName, organizationId: string, id: string): string {
  return executionName(organizationId, `${workflows[workflow].operation.executionPrefix}-${id}`);
}

/** The workflow's input: `{ organizationId, [idField]: id }`. */
export function operationInput(workflow: OperationWorkflowName, organizationId: string, id: string): Record<string, string> {
  return { organizationId, [workflows[workflow].operation.idField]: id };
}

/** Starts the workflow; a repeat is answered, not thrown, and runs nothing. Errors propagate: the caller retries. */
export async function startOperation(workflow: OperationWorkflowName, organizationId: string, id: string): Promise<void> {
  const engine = await workflowEngine();
  await engine.start(workflow, operationExecutionName(workflow, organizationId, id), operationInput(workflow, organizationId, id));
}

/**
 * Starts the workflow right after the operation's commit. A failure is logged, not answered: the
 * operation is stored with the event that starts it (`startedBy`), and the sweeper starts what is
 * left, so the request that stored it still succeeds.
 */
export async function startAfterCommit(workflow: OperationWorkflowName, organizationId: string, id: string): Promise<void> {
  try {
    await startOperation(workflow, organizationId, id);
  } catch (error) {
    const { noun, startedBy } = workflows[workflow].operation;
    logger.error(`${noun} workflow not started; its ${startedBy.join(' / ')} event will start it`, { workflow, organizationId, id, error: error as Error });
  }
}
