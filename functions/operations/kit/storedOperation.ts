import { workflows, type OperationWorkflowName } from '#contract/workflows.ts';
import { getOperation, transitionOperation, type OperationBase, type OperationEvent, type OperationKind, type OperationTransition } from '#store/operations.ts';
import { operationProgress, type OperationProgress } from './progress.ts';

/** How a step names an operation stored as operation items: its organization and its id under the registry's `idField`. */
export type StoredOperationRef = { organizationId: string } & Record<string, string>;

/**
 * The progress shape for an operation stored as operation items (functions/store/operations.ts:
 * withdrawals, off-ramps, on-ramps, chain deposits): found by its kind and the id named by its
 * workflow's `idField`, moved by `transitionOperation`. `eventOf`, when given, is the event every
 * move carries (the one of the status it reaches); otherwise each transition says its own.
 */
export function storedOperationProgress<Ref extends { organizationId: string }, R extends OperationBase, O extends string>(spec: {
  workflow: OperationWorkflowName;
  kind: OperationKind;
  outcomeOf(record: R): O;
  eventOf?: (after: R) => OperationEvent | undefined;
}): OperationProgress<Ref, R, R['status'], O, OperationTransition<R>> {
  const { idField, noun } = workflows[spec.workflow].operation;
  const idOf = (ref: Ref) => (ref as unknown as StoredOperationRef)[idField]!;
  return operationProgress<Ref, R, R['status'], O, OperationTransition<R>>({
    noun,
    idOf,
    refOf: (record) => ({ organizationId: record.organizationId, [idField]: record.id }) as unknown as Ref,
    find: (ref) => getOperation<R>(ref.organizationId, spec.kind, idOf(ref)),
    statusOf: (record) => record.status,
    write: (record, transition) => transitionOperation(record, spec.eventOf ? { ...transition, event: spec.eventOf } : transition),
    outcomeOf: spec.outcomeOf,
  });
}
