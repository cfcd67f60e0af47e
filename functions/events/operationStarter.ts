import * as z from 'zod/mini';
import { workflows, type OperationWorkflowName } from '#contract/workflows.ts';
import { startOperation } from '#operations/kit/start.ts';
import { queueConsumer } from '#platform/queueConsumer.ts';
import { outboxEventSchema } from '#store/outbox.ts';

/**
 * Event rule target for every operation's `startedBy` events (transaction.funded,
 * withdrawal.initiated, offramp.accepted, onramp.started, chain_deposit.settling): starts that
 * operation's workflow. Whoever stored the operation starts it right after its commit; this is the
 * safety net for one that died in between. Which workflow, and where its id is in the event, come
 * from the registry (functions/contract/workflows.ts); the execution name is derived from the
 * operation, so a second start is a repeat (decision 100) and nothing runs twice.
 */
const startedBy = new Map<string, OperationWorkflowName>(
  Object.values(workflows).flatMap((workflow) => ('operation' in workflow ? workflow.operation.startedBy.map((type) => [type, workflow.name] as const) : [])),
);

const eventSchema = z.object({ 'detail-type': z.string().check(z.minLength(1)), detail: z.extend(outboxEventSchema, { data: z.record(z.string(), z.unknown()) }) });

export const handler = queueConsumer('workflow not started from its event', eventSchema, async ({ 'detail-type': type, detail }) => {
  const workflow = startedBy.get(type);
  if (!workflow) throw new Error(`no operation starts on ${type}`);
  const id = z.string().check(z.minLength(1)).parse(detail.data[workflows[workflow].operation.idField]);
  await startOperation(workflow, detail.organizationId, id);
});
