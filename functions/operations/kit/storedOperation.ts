import { workflows, type OperationWorkflowName } from '#contract/workflows.ts';
import { operationMoved } from '#platform/metrics.ts';
import { getOperation, operationTransitionItems, type OperationBase, type OperationEvent, type OperationKind, type OperationTransition } from '#store/operations.ts';
import { writeWithLedger } from './ledgerWrite.ts';
import { operationProgress, type OperationProgress } from './progress.ts';

/** How a step names an operation stored as operation items: its organization and its id under the registry's `idField`. */
export type StoredOperationRef = { organizationId: string } & Record<string, string>;

/**
 * One conditional move of an operation stored as operation items (functions/store/operations.ts)
 * from the status `record` is in: the status, its timeline entry, its event, its further items
 * and its ledger movement in one transaction (the kit's ledger write). The record as it now is,
 * or undefined when the operation was no longer in that status (another delivery moved it first);
 * a ledger movement that does not fit (InsufficientFunds) is thrown, with nothing written.
 */
export async function moveStoredOperation<R extends OperationBase>(record: R, transition: OperationTransition<R>): Promise<R | undefined> {
  const { items, next } = operationTransitionItems(record, transition);
  if (!(await writeWithLedger(items, transition.ledger))) return undefined;
  if (record.status !== transition.to) operationMoved(record.kind, transition.to);
  return next;
}

/**
 * The progress shape for an operation stored as operation items (withdrawals, off-ramps,
 * on-ramps, chain deposits): found by its kind and the id named by its workflow's `idField`, moved
 * by `moveStoredOperation`. `eventOf`, when given, is the event every move carries (the one of the
 * status it reaches); otherwise each transition says its own.
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
    write: (record, transition) => moveStoredOperation(record, spec.eventOf ? { ...transition, event: spec.eventOf } : transition),
    outcomeOf: spec.outcomeOf,
  });
}
