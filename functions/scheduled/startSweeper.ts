import * as z from 'zod/mini';
import { config } from '#platform/config.ts';
import { logger } from '#platform/logger.ts';
import { count } from '#platform/metrics.ts';
import { workflowEngine } from '#platform/workflow.ts';
import { operationExecutionName, operationInput } from '#operations/kit/start.ts';
import { listStartingOperations } from '#store/operations.ts';
import type { OperationWorkflowName } from '#contract/workflows.ts';
import type { sweptOperations } from '#contract/metrics.ts';

/**
 * The sweeper, on a schedule (EventBridge Scheduler in AWS: lib/aws/sweeperSchedule.ts; a timer
 * in lib/local/service.ts): nothing stays stuck silently. It reads the operations still in their
 * starting status (a payment FUNDED, a withdrawal INITIATED) for longer than SWEEPER_GRACE_SECONDS,
 * from their sparse index (functions/store/keys.ts startingIndex, never a scan), and starts each
 * one's workflow again under its own execution name. One whose workflow already runs or has run is
 * a repeat, whichever way the engine answers it (Step Functions answers a running execution's name
 * and input with success, naming it: the port says `started: false`, decision 100): harmless, not
 * counted, however many sweeps find it (a batch ACCEPTED while StartItems waits for its FX source).
 * One that really had none (the process died between
 * the commit and the start, or the start and its safety-net event both failed) now runs, once,
 * counted as SweeperRestarted and logged.
 */
/** The kinds the starting index holds (functions/store/keys.ts startingIndex), by their workflow; each has its alarm. */
const startingKinds: Record<(typeof sweptOperations)[number], OperationWorkflowName> = { payment: 'payment', withdrawal: 'withdrawal', batch: 'batch' };

const resultSchema = z.object({ checked: z.number(), restarted: z.array(z.string()) });
export type SweepResult = z.infer<typeof resultSchema>;

export async function handler(): Promise<SweepResult> {
  const before = new Date(Date.now() - config().SWEEPER_GRACE_SECONDS * 1000).toISOString();
  const starting = await listStartingOperations(before);
  const engine = await workflowEngine();
  const restarted: string[] = [];
  for (const operation of starting) {
    const workflow = (startingKinds as Record<string, OperationWorkflowName | undefined>)[operation.kind];
    if (!workflow) continue;
    const name = operationExecutionName(workflow, operation.organizationId, operation.id);
    try {
      const { started } = await engine.start(workflow, name, operationInput(workflow, operation.organizationId, operation.id));
      if (!started) continue;
      restarted.push(name);
      count('SweeperRestarted', { operation: operation.kind });
      logger.warn('sweeper started a workflow that had not started', { operation: operation.kind, organizationId: operation.organizationId, operationId: operation.id, executionName: name, since: operation.createdAt });
    } catch (error) {
      // The next sweep tries again; one bad item does not stop the others.
      logger.error('sweeper could not start a workflow', { operation: operation.kind, operationId: operation.id, error: error as Error });
    }
  }
  return { checked: starting.length, restarted };
}
